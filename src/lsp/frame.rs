//! The language server's framing: `Content-Length` headers and bodies read from a byte
//! stream, checked before anything is allocated or parsed.
//!
//! A client may send anything. The reader bounds every line and every body, reads a header
//! ended by CRLF or by a bare LF, and after a broken header finds the next `Content-Length:`
//! and goes on, so one bad message costs one error answer, never the connection.

use std::io::{self, BufRead, Read};

/// The largest body accepted (32 MiB): larger than any rule file an editor sends, small enough
/// that a hostile header cannot make the server allocate much.
pub const MAX_BODY: u64 = 32 << 20;
/// The longest header line kept (the rest of a longer line is skipped as it streams by).
const MAX_HEADER_LINE: usize = 8 << 10;

/// What the next read brought.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A message body of the length its header gave.
    Body(Vec<u8>),
    /// The framing was broken; what was wrong. The reader has skipped past it.
    Bad(String),
    /// The client closed its end (at a message boundary or inside one).
    Eof,
}

/// Reads frames from `r`.
pub struct FrameReader<R> {
    r: R,
}

/// One header line into `line`, without its line end; false at the end of input.
fn read_line_capped<R: BufRead>(r: &mut R, line: &mut Vec<u8>) -> io::Result<bool> {
    line.clear();
    let mut total = 0usize;
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(total > 0);
        }
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        line.extend_from_slice(chunk);
        total += chunk.len();
        // Keep the line's tail: a `Content-Length:` glued after junk is at its end.
        if line.len() > MAX_HEADER_LINE {
            let cut = line.len() - MAX_HEADER_LINE;
            line.drain(..cut);
        }
        let used = done.unwrap_or(buf.len());
        r.consume(used);
        if done.is_some() {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(true);
        }
    }
}

/// Where `Content-Length:` starts in `line`, ignoring case.
fn find_length_header(line: &[u8]) -> Option<usize> {
    const KEY: &[u8] = b"content-length:";
    line.windows(KEY.len())
        .position(|w| w.eq_ignore_ascii_case(KEY))
}

impl<R: BufRead> FrameReader<R> {
    /// A reader over `r`.
    pub fn new(r: R) -> Self {
        Self { r }
    }

    /// The next frame. Input errors other than the end are returned as they are.
    pub fn next_frame(&mut self) -> io::Result<Frame> {
        let mut line = Vec::new();
        let mut length: Option<Result<u64, String>> = None;
        let mut headers = 0usize;
        loop {
            if !read_line_capped(&mut self.r, &mut line)? {
                return Ok(Frame::Eof);
            }
            if line.is_empty() {
                if headers == 0 {
                    // A stray blank line between messages.
                    continue;
                }
                break;
            }
            // A header is `Name: value`; a line that is not one is skipped, unless a
            // `Content-Length:` follows the junk on it (a body shorter than its header said,
            // with the next message glued on).
            let at = find_length_header(&line);
            let is_header = at == Some(0)
                || (at.is_none()
                    && line.iter().position(|&b| b == b':').is_some_and(|i| {
                        i > 0
                            && line[..i]
                                .iter()
                                .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
                    }));
            if !is_header {
                match at {
                    Some(i) => {
                        line.drain(..i);
                    }
                    None => continue,
                }
            }
            headers += 1;
            if find_length_header(&line) == Some(0) {
                let value = String::from_utf8_lossy(&line[b"content-length:".len()..]);
                let value = value.trim();
                let parsed = match value.parse::<u64>() {
                    Ok(n) if n > MAX_BODY => Err(format!(
                        "Content-Length {n} is over the limit of {MAX_BODY} bytes"
                    )),
                    Ok(n) => Ok(n),
                    Err(_) => Err(format!(
                        "Content-Length '{}' is not a byte count",
                        value.chars().take(40).collect::<String>()
                    )),
                };
                length = Some(parsed);
            }
        }
        let n = match length {
            None => {
                return Ok(Frame::Bad(
                    "a message header without Content-Length".to_string(),
                ));
            }
            Some(Err(e)) => return Ok(Frame::Bad(e)),
            Some(Ok(n)) => n,
        };
        let mut body = Vec::new();
        (&mut self.r).take(n).read_to_end(&mut body)?;
        if (body.len() as u64) < n {
            return Ok(Frame::Eof);
        }
        Ok(Frame::Body(body))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> Vec<Frame> {
        let mut r = FrameReader::new(input);
        let mut out = Vec::new();
        loop {
            let f = r.next_frame().unwrap();
            let end = f == Frame::Eof;
            out.push(f);
            if end {
                return out;
            }
        }
    }

    #[test]
    fn reads_crlf_and_lf_headers_and_resyncs_after_junk() {
        let got = frames(
            b"Content-Length: 2\r\n\r\n{}Content-Length: 3\n\n[1]\
              Content-Type: x\r\n\r\nzzzContent-Length: 1\r\n\r\n7",
        );
        assert_eq!(got[0], Frame::Body(b"{}".to_vec()));
        assert_eq!(got[1], Frame::Body(b"[1]".to_vec()));
        assert!(matches!(&got[2], Frame::Bad(m) if m.contains("without Content-Length")));
        assert_eq!(got[3], Frame::Body(b"7".to_vec()));
        assert_eq!(got[4], Frame::Eof);
    }

    #[test]
    fn refuses_huge_negative_and_garbage_lengths_without_allocating() {
        for h in ["9223372036854775807", "1000000000", "-5", "abc"] {
            let input = format!("Content-Length: {h}\r\n\r\n{{}}Content-Length: 2\r\n\r\n{{}}");
            let got = frames(input.as_bytes());
            assert!(matches!(&got[0], Frame::Bad(_)), "{h}: {got:?}");
            assert_eq!(got[1], Frame::Body(b"{}".to_vec()), "{h}");
        }
    }

    #[test]
    fn a_long_junk_line_keeps_its_tail() {
        let mut input = vec![b'x'; 100_000];
        input.extend_from_slice(b"Content-Length: 2\r\n\r\n{}");
        let got = frames(&input);
        assert_eq!(got[0], Frame::Body(b"{}".to_vec()));
    }
}
