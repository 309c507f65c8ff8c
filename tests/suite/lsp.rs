//! `kumite lsp` driven by a scripted client over a real process's standard input and output:
//! initialize, didOpen, diagnostics, completion, hover, definition, references, rename,
//! formatting, code actions, semantic tokens, document symbols, a malformed request, shutdown.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: i64,
    /// Notifications seen while waiting for answers.
    notes: Vec<Value>,
}

impl Client {
    fn start() -> Self {
        Self::spawn(Command::new(env!("CARGO_BIN_EXE_kumite")).arg("lsp"))
    }
    /// The server under a 4 GB address-space cap: an allocation a header asks for aborts.
    fn start_capped() -> Self {
        Self::spawn(Command::new("sh").args([
            "-c",
            "ulimit -v 4000000 && exec \"$0\" lsp",
            env!("CARGO_BIN_EXE_kumite"),
        ]))
    }
    fn spawn(cmd: &mut Command) -> Self {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("kumite lsp starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Self {
            child,
            stdin,
            stdout,
            next: 1,
            notes: Vec::new(),
        }
    }
    fn send(&mut self, v: &Value) {
        let body = v.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }
    fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }
    /// Sends a body framed with its true length.
    fn send_body(&mut self, body: &[u8]) {
        let mut m = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        m.extend_from_slice(body);
        self.send_raw(&m);
    }
    /// The next message that is not a notification.
    fn answer(&mut self) -> Value {
        loop {
            let m = self.read();
            if m.get("method").is_none() {
                return m;
            }
            self.notes.push(m);
        }
    }
    fn read(&mut self) -> Value {
        let mut len = 0;
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "server closed"
            );
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(v) = line.strip_prefix("Content-Length: ") {
                len = v.parse().unwrap();
            }
        }
        let mut buf = vec![0; len];
        self.stdout.read_exact(&mut buf).unwrap();
        serde_json::from_slice(&buf).unwrap()
    }
    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }
    /// Sends a request and waits for its answer (keeping notifications).
    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let m = self.read();
            if m.get("id") == Some(&json!(id)) {
                return m;
            }
            self.notes.push(m);
        }
    }
    fn wait_diagnostics(&mut self) -> Value {
        loop {
            if let Some(i) = self
                .notes
                .iter()
                .position(|n| n["method"] == "textDocument/publishDiagnostics")
            {
                return self.notes.remove(i);
            }
            let m = self.read();
            self.notes.push(m);
        }
    }
}

const URI: &str = "file:///tmp/boxing.kmt";
const TEXT: &str = "!:h.体力=10,c.体力=10,[ジャブ],[左フック]\n':j=[ジャブ],l=[左フック]\n&{\n[左フック]:O.体力-2\n}\n[ジャブ]:O.体カ-1\nO.体力<=0:S.勝利\n";

fn pos(text: &str, needle: &str, delta: usize) -> Value {
    let base = text.find(needle).unwrap();
    let off = base
        + text[base..]
            .chars()
            .take(delta)
            .map(char::len_utf8)
            .sum::<usize>();
    let line = text[..off].matches('\n').count();
    let ls = text[..off].rfind('\n').map_or(0, |i| i + 1);
    let ch: usize = text[ls..off].chars().map(char::len_utf16).sum();
    json!({"line": line, "character": ch})
}

#[test]
fn a_scripted_client_gets_every_answer() {
    let mut c = Client::start();
    let init = c.call(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {}}),
    );
    let caps = &init["result"]["capabilities"];
    assert_eq!(caps["positionEncoding"], "utf-16");
    assert_eq!(caps["hoverProvider"], true);
    c.notify("initialized", json!({}));
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "kumite", "version": 1, "text": TEXT}}),
    );
    // The typo 体カ: W016 with did-you-mean at line 6.
    let d = c.wait_diagnostics();
    let diags = d["params"]["diagnostics"].as_array().unwrap();
    let w016 = diags.iter().find(|d| d["code"] == "W016").expect("W016");
    assert_eq!(w016["range"]["start"]["line"], 5);
    assert!(
        w016["message"]
            .as_str()
            .unwrap()
            .contains("did you mean 体力")
    );

    // A quick fix for it.
    let r = c.call(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": URI}, "range": w016["range"], "context": {"diagnostics": [w016]}}),
    );
    let actions = r["result"].as_array().unwrap();
    assert_eq!(actions[0]["title"], "Change to 体力");
    let edit = &actions[0]["edit"]["changes"][URI][0];
    assert_eq!(edit["newText"], "体力");

    // Completion after `O.` offers the states; after `[` the commands.
    let text2 = format!("{TEXT}[ジャブ]:O.");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": text2}]}),
    );
    let end =
        json!({"line": text2.matches('\n').count(), "character": "[ジャブ]:O.".chars().count()});
    let r = c.call(
        "textDocument/completion",
        json!({"textDocument": {"uri": URI}, "position": end}),
    );
    let labels: Vec<&str> = r["result"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels[0], "体力", "{labels:?}");

    // Back to the first text, by an incremental change deleting the added line.
    let last = TEXT.matches('\n').count();
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 3}, "contentChanges": [{
            "range": {"start": {"line": last, "character": 0}, "end": {"line": last, "character": 9}},
            "text": ""
        }]}),
    );

    // Hover on 体力 in the victory rule.
    let r = c.call(
        "textDocument/hover",
        json!({"textDocument": {"uri": URI}, "position": pos(TEXT, "体力<=0", 0)}),
    );
    let md = r["result"]["contents"]["value"].as_str().unwrap();
    assert!(md.starts_with("**state 体力**"), "{md}");
    assert!(md.contains("initial: h 10, c 10"), "{md}");

    // Definition of [左フック] from the symmetric block: its enabling in the initial line.
    let r = c.call(
        "textDocument/definition",
        json!({"textDocument": {"uri": URI}, "position": pos(TEXT, "[左フック]:O", 1)}),
    );
    assert_eq!(r["result"]["range"]["start"], pos(TEXT, "左フック]", 0));

    // References: initial line, key line, the rule.
    let r = c.call(
        "textDocument/references",
        json!({"textDocument": {"uri": URI}, "position": pos(TEXT, "[左フック]:O", 1), "context": {"includeDeclaration": true}}),
    );
    assert_eq!(r["result"].as_array().unwrap().len(), 3);

    // Rename 体力 → HP: every use (the typo 体カ is another name and stays).
    let r = c.call(
        "textDocument/rename",
        json!({"textDocument": {"uri": URI}, "position": pos(TEXT, "体力<=0", 1), "newName": "HP"}),
    );
    let edits = r["result"]["changes"][URI].as_array().unwrap();
    assert_eq!(edits.len(), 4);
    assert!(edits.iter().all(|e| e["newText"] == "HP"));
    // A rename to a name that exists is refused with a reason.
    let r = c.call(
        "textDocument/rename",
        json!({"textDocument": {"uri": URI}, "position": pos(TEXT, "[ジャブ]:O", 1), "newName": "左フック"}),
    );
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already exists")
    );

    // Formatting a spaced line.
    let spaced = "!: h.体力 = 3 , c.体力=3\nO.体力 <= 0 : S.勝利\n";
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": "file:///tmp/f.kmt", "languageId": "kumite", "version": 1, "text": spaced}}),
    );
    let r = c.call(
        "textDocument/formatting",
        json!({"textDocument": {"uri": "file:///tmp/f.kmt"}, "options": {"tabSize": 2, "insertSpaces": true}}),
    );
    assert_eq!(
        r["result"][0]["newText"],
        "!:h.体力=3,c.体力=3\nO.体力<=0:S.勝利\n"
    );

    // Symbols and semantic tokens.
    let r = c.call(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": URI}}),
    );
    let names: Vec<&str> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"体力") && names.contains(&"[左フック]") && names.contains(&"key j"));
    let r = c.call(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": URI}}),
    );
    let data = r["result"]["data"].as_array().unwrap();
    assert_eq!(data.len() % 5, 0);
    assert!(data.len() > 50);

    // A malformed request gets an error, and the server goes on.
    let r = c.call("textDocument/hover", json!({"nonsense": true}));
    assert!(r["error"].is_object());
    let r = c.call(
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///not/open.kmt"}, "position": {"line": 0, "character": 0}}),
    );
    assert!(r["error"].is_object());

    let r = c.call("shutdown", Value::Null);
    assert!(r["result"].is_null());
    c.notify("exit", Value::Null);
    let status = c.child.wait().unwrap();
    assert!(status.success());
}

use crate::common;

/// Answer times on a 10,000-line file through the real process (run in release:
/// `cargo test --release --test suite lsp:: -- --ignored --nocapture`). A measurement, not a check.
#[test]
#[ignore]
fn measure_answers_on_10k_lines() {
    let text = common::generated(10_000);
    let mut c = Client::start();
    c.call("initialize", json!({"processId": null, "capabilities": {}}));
    c.notify("initialized", json!({}));
    let uri = "file:///tmp/big.kmt";
    let t = std::time::Instant::now();
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "kumite", "version": 1, "text": text}}),
    );
    c.wait_diagnostics();
    println!(
        "open + diagnostics: {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let line = text.lines().count() / 2;
    let t = std::time::Instant::now();
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{
            "range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}},
            "text": "# edit\n"
        }]}),
    );
    c.wait_diagnostics();
    println!(
        "edit + diagnostics: {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let p = pos(&text, "O.体力<=0", 2);
    for (m, params) in [
        (
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 0}}),
        ),
        (
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": p}),
        ),
        (
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": p}),
        ),
        (
            "textDocument/definition",
            json!({"textDocument": {"uri": uri}, "position": p}),
        ),
        (
            "textDocument/references",
            json!({"textDocument": {"uri": uri}, "position": p, "context": {"includeDeclaration": true}}),
        ),
        (
            "textDocument/rename",
            json!({"textDocument": {"uri": uri}, "position": p, "newName": "HP"}),
        ),
        (
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        ),
        (
            "textDocument/semanticTokens/full",
            json!({"textDocument": {"uri": uri}}),
        ),
        (
            "textDocument/formatting",
            json!({"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": true}}),
        ),
    ] {
        let t = std::time::Instant::now();
        let r = c.call(m, params);
        assert!(r.get("error").is_none(), "{m}: {r}");
        println!("{m}: {:.2} ms", t.elapsed().as_secs_f64() * 1e3);
    }
    c.call("shutdown", Value::Null);
    c.notify("exit", Value::Null);
    let _ = c.child.wait();
}

#[test]
fn exit_without_shutdown_ends_the_server_with_status_1() {
    let mut c = Client::start();
    c.call("initialize", json!({"processId": null, "capabilities": {}}));
    c.notify("initialized", json!({}));
    c.notify("exit", Value::Null);
    let t0 = std::time::Instant::now();
    let status = loop {
        if let Some(s) = c.child.try_wait().unwrap() {
            break s;
        }
        assert!(t0.elapsed().as_secs() < 10, "the server did not exit");
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    assert_eq!(status.code(), Some(1));
}

/// The server still answers: a hover on an open document.
fn still_serves(c: &mut Client, uri: &str) {
    let r = c.call(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    assert!(r["result"].is_array(), "{r}");
}

fn code(v: &Value) -> i64 {
    v["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("an error: {v}"))
}

#[test]
fn hostile_messages_get_error_answers_and_the_server_goes_on() {
    let mut c = Client::start_capped();
    // A request before initialize: an error in words.
    let r = c.call("textDocument/hover", json!({}));
    assert_eq!(code(&r), -32002);
    let m = r["error"]["message"].as_str().unwrap();
    assert!(
        m.contains("not initialized") && !m.contains("Request {"),
        "{m}"
    );
    c.call("initialize", json!({"processId": null, "capabilities": {}}));
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "kumite", "version": 1, "text": TEXT}}),
    );

    // Bodies that are not JSON, not objects, not messages, not UTF-8.
    for (body, want, id) in [
        (&b"{not json"[..], -32700, Value::Null),
        (b"[1,2,3]", -32600, Value::Null),
        (br#"{"jsonrpc":"2.0","id":7}"#, -32600, json!(7)),
        (b"\xff\xfe{}", -32700, Value::Null),
        (
            br#"{"jsonrpc":"2.0","id":{"a":1},"method":"x"}"#,
            -32600,
            Value::Null,
        ),
    ] {
        c.send_body(body);
        let r = c.answer();
        assert_eq!(code(&r), want, "{r}");
        assert_eq!(r["id"], id, "{r}");
        still_serves(&mut c, URI);
    }

    // Broken framing: each costs one error answer.
    let hover = |id: i64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/documentSymbol",
               "params": {"textDocument": {"uri": URI}}})
        .to_string()
    };
    for header in [
        "Content-Type: application/json\r\n\r\n".to_string(),
        "Content-Length: -5\r\n\r\n".to_string(),
        "Content-Length: 9223372036854775807\r\n\r\n".to_string(),
        "Content-Length: 1000000000\r\n\r\n".to_string(),
        "Content-Length: 4\r\n\r\n".to_string(),
    ] {
        let body = hover(900);
        c.send_raw(format!("{header}{body}").as_bytes());
        let r = c.answer();
        assert_eq!(code(&r), -32700, "{header:?}: {r}");
        assert!(r["error"]["message"].as_str().unwrap().len() < 200, "{r}");
        still_serves(&mut c, URI);
    }
    // An LF-only header is read.
    let body = hover(901);
    c.send_raw(format!("Content-Length: {}\n\n{body}", body.len()).as_bytes());
    let r = c.answer();
    assert_eq!(r["id"], 901, "{r}");
    assert!(r["result"].is_array());

    // A rename to something that is not a name is refused.
    for bad in ["\u{0}", "a\u{1b}c", "", " "] {
        let r = c.call(
            "textDocument/rename",
            json!({"textDocument": {"uri": URI}, "position": pos(TEXT, "体力<=0", 1), "newName": bad}),
        );
        assert!(r["error"].is_object(), "{bad:?}: {r}");
    }

    // A macro chain whose lists grow with the square of its length: an error, not an abort.
    let mut chain = String::from("${\n");
    for i in 0..20_000 {
        chain.push_str(&format!("[M{i}]:[M{}];[z{i}]\n", i + 1));
    }
    chain.push_str("[M20000]:[end]\n}\n!:[end]\n[end]:S.勝利\n");
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": "file:///tmp/chain.kmt", "languageId": "kumite", "version": 1, "text": chain}}),
    );
    let d = loop {
        let d = c.wait_diagnostics();
        if d["params"]["uri"] == "file:///tmp/chain.kmt" {
            break d;
        }
    };
    assert!(
        d["params"]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["code"] == "E024"),
        "{d}"
    );
    still_serves(&mut c, URI);

    // After shutdown, requests are refused, and exit ends the server cleanly.
    let r = c.call("shutdown", Value::Null);
    assert!(r["result"].is_null());
    let r = c.call("textDocument/hover", json!({}));
    assert_eq!(code(&r), -32600);
    assert!(r["error"]["message"].as_str().unwrap().contains("shutdown"));
    c.notify("exit", Value::Null);
    assert!(c.child.wait().unwrap().success());
}

/// Random bytes and random headers, for a bounded number of messages per seed: the server
/// answers with well-framed JSON or reads on, and ends cleanly when its input closes.
#[test]
fn framing_fuzzer_never_ends_the_server() {
    use kumite::engine::rng::SplitMix;
    use rand::RngExt;
    for seed in 0..12u64 {
        let mut rng = SplitMix(seed);
        let mut input: Vec<u8> = Vec::new();
        let valid = |id: u64| {
            json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/documentSymbol",
                   "params": {"textDocument": {"uri": URI}}})
            .to_string()
        };
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"capabilities": {}}}).to_string();
        input.extend(format!("Content-Length: {}\r\n\r\n{init}", init.len()).bytes());
        for k in 0..150u64 {
            let body = valid(k + 1);
            match rng.random_range(0..9) {
                0 => {
                    let n = rng.random_range(0..300);
                    input.extend((0..n).map(|_| rng.random_range(0..=255u32) as u8));
                }
                1 => input.extend(
                    format!(
                        "Content-Length: {}\r\n\r\n",
                        rng.random_range(0..2_000_000_000u64)
                    )
                    .bytes(),
                ),
                2 => input
                    .extend(format!("Content-Length: {}\r\n\r\n{body}", body.len() / 2).bytes()),
                3 => input.extend(b"Content-Length: \r\nX\r\n\r\n"),
                4 => {
                    let mut b = body.clone().into_bytes();
                    let i = rng.random_range(0..b.len());
                    b[i] = rng.random_range(0..=255u32) as u8;
                    input.extend(format!("Content-Length: {}\r\n\r\n", b.len()).bytes());
                    input.extend(b);
                }
                5 => input.extend(format!("content-length:{}\n\n{body}", body.len()).bytes()),
                6 => input.extend(
                    format!("Content-Length: {}\r\n\r\n{{\"jsonrpc\":\"2.0\"}}", 17).bytes(),
                ),
                _ => input.extend(format!("Content-Length: {}\r\n\r\n{body}", body.len()).bytes()),
            }
        }
        let Client {
            mut child,
            mut stdin,
            mut stdout,
            ..
        } = Client::start_capped();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
            drop(stdin);
        });
        // Every message the server writes is framed JSON-RPC; the server exits by itself.
        let mut raw = Vec::new();
        stdout.read_to_end(&mut raw).unwrap();
        writer.join().unwrap();
        let status = child.wait().unwrap();
        assert!(status.success(), "seed {seed}: {status:?}");
        let mut r = &raw[..];
        let mut answers = 0;
        while !r.is_empty() {
            let head_end = r
                .windows(4)
                .position(|w| w == b"\r\n\r\n")
                .expect("a header");
            let head = std::str::from_utf8(&r[..head_end]).unwrap();
            let n: usize = head
                .strip_prefix("Content-Length: ")
                .unwrap()
                .parse()
                .unwrap();
            let body = &r[head_end + 4..head_end + 4 + n];
            let v: Value = serde_json::from_slice(body).expect("JSON");
            assert_eq!(v["jsonrpc"], "2.0");
            answers += 1;
            r = &r[head_end + 4 + n..];
        }
        assert!(answers > 1, "seed {seed}");
    }
}
