//! The match panel's logic without drawing: real-time ticks, simultaneous turns with a hidden
//! CPU choice, undo against the CPU, starting from an edited position, replays.

use crate::common;
use kumite::side::Side;

use kumite::analysis::VictoryGraph;
use kumite::gui::session::{Controller, MatchSession, key_name};
use kumite::pipeline::compile;
use kumite::search::CpuSettings;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn session(file: &str, players: [Controller; 2], edit: bool) -> MatchSession {
    let text = common::read(&common::root().join("rules").join(file));
    let c = Arc::new(compile(&text));
    let p = c.program.as_ref().expect("compiles");
    let g = Arc::new(VictoryGraph::build(p));
    let cpu = CpuSettings::parse(p, "P100").unwrap();
    let mut s = MatchSession::new(c.clone(), g, 7, players, cpu, None).unwrap();
    s.started = !edit;
    s
}

fn until(s: &mut MatchSession, what: &str, done: impl Fn(&MatchSession) -> bool) {
    let t0 = Instant::now();
    while !done(s) {
        assert!(t0.elapsed() < Duration::from_secs(20), "timed out: {what}");
        s.tick(None);
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn real_time_turns_tick_by_themselves_and_an_idle_side_acts_with_no_command() {
    let mut s = session("sumo.kmt", [Controller::Human, Controller::Human], false);
    s.realtime = true;
    until(&mut s, "three ticks", |s| s.st.turn >= 3);
    assert!(
        s.turns.iter().all(|t| t.cmds == [None, None]),
        "nobody chose"
    );
    // A key between ticks is played at the next tick, not at once.
    let side = s.human_to_choose().unwrap();
    let before = s.st.turn;
    let push = s.key("p").unwrap().unwrap();
    assert_eq!(s.st.turn, before, "waits for the tick");
    until(&mut s, "the next tick", |s| s.st.turn > before);
    assert_eq!(s.turns[before as usize].cmds[side], Some(push));
}

#[test]
fn simultaneous_turns_wait_for_both_and_hide_nothing_from_the_rules() {
    let mut s = session("cc_lemon.kmt", [Controller::Human, Controller::Cpu], false);
    // The CPU chooses on its own thread; the turn waits for the human.
    until(&mut s, "the CPU's choice", |s| s.pending[1].is_some());
    assert_eq!(s.st.turn, 0);
    assert_eq!(s.waiting_for(), vec![Side::H]);
    let charge = s.key("c").unwrap().unwrap();
    assert_eq!(s.st.turn, 1, "resolved once both chose");
    assert_eq!(s.turns[0].cmds[0], Some(charge));
    assert!(s.turns[0].cmds[1].is_some());
    // An unbound key is ignored; a command that is not enabled is refused.
    assert_eq!(s.key("z").unwrap(), None);
    until(&mut s, "the CPU's choice", |s| {
        s.pending[1].is_some() || s.over()
    });
    if !s.over() {
        let charges = s.value(Side::H, s.prog().state_id("チャージ").unwrap() as usize);
        if charges < 5 {
            assert!(s.key("s").unwrap_err().to_string().contains("not enabled"));
        }
    }
}

#[test]
fn undo_against_the_cpu_goes_back_to_the_humans_last_choice() {
    let mut s = session("ex1_push.kmt", [Controller::Human, Controller::Cpu], false);
    s.key("p").unwrap();
    until(&mut s, "the CPU's reply", |s| s.st.turn == 2);
    s.key("p").unwrap();
    until(&mut s, "the CPU's reply", |s| s.st.turn == 4);
    assert!(s.undo());
    assert_eq!(s.st.turn, 2, "both h's push and c's reply are taken back");
    assert_eq!(s.st.to_move, Side::H);
    assert_eq!(s.judgements.len(), 3);
    assert!(s.undo());
    assert_eq!(s.st, s.start);
    assert!(!s.undo());
}

#[test]
fn a_match_can_start_from_an_edited_position() {
    let mut s = session("ex1_push.kmt", [Controller::Human, Controller::Cpu], true);
    assert!(s.movers().is_empty(), "not started while editing");
    let margin = s.prog().state_id("後ろ余裕度").unwrap() as usize;
    let ns = s.prog().states.len();
    s.st.vals[ns + margin] = 0; // c's back margin
    s.start_from_edited().unwrap();
    assert_eq!(s.judgement().dist[0], 1);
    s.key("p").unwrap();
    assert_eq!(s.outcome(), Some(kumite::engine::Outcome::H));
    assert_eq!(s.st.turn, 1);
}

#[test]
fn a_replay_plays_the_path_and_notices_when_chance_differs() {
    let mut s = session("ex1_push.kmt", [Controller::Human, Controller::Cpu], false);
    let push = s.prog().command_id("押す").unwrap();
    let moves: Vec<[Option<u32>; 2]> = (0..21)
        .map(|i| {
            if i % 2 == 0 {
                [Some(push), None]
            } else {
                [None, Some(push)]
            }
        })
        .collect();
    // The path's states after step 1, as the solver prints them; step 2 expects something else.
    let mut probe = session(
        "ex1_push.kmt",
        [Controller::Human, Controller::Human],
        false,
    );
    probe.choose(Side::H, Some(push)).unwrap();
    let after1 = kumite::engine::players::both_states(
        &kumite::engine::Engine::new(probe.prog(), 7),
        &probe.st,
    );
    let wrong = kumite::engine::players::BothStates::default();
    s.load_replay(moves, vec![after1, wrong]);
    // The CPU waits while a replay is loaded.
    s.tick(None);
    assert!(s.thinking().is_none());
    assert!(s.replay_step());
    assert_eq!(s.replay.as_ref().unwrap().diverged, None);
    while s.replay_step() {}
    assert_eq!(s.replay.as_ref().unwrap().diverged, Some(2));
    assert_eq!(s.outcome(), Some(kumite::engine::Outcome::H));
    assert_eq!(s.st.turn, 21);
}

#[test]
fn key_names_follow_the_language_shift_gives_upper_case() {
    use egui::{Event, Key, Modifiers};
    let key = |key, modifiers| Event::Key {
        key,
        physical_key: None,
        pressed: true,
        repeat: false,
        modifiers,
    };
    assert_eq!(
        key_name(&key(Key::C, Modifiers::NONE)).as_deref(),
        Some("c")
    );
    assert_eq!(
        key_name(&key(Key::C, Modifiers::SHIFT)).as_deref(),
        Some("C")
    );
    assert_eq!(
        key_name(&key(Key::Space, Modifiers::NONE)).as_deref(),
        Some("Space")
    );
    assert_eq!(
        key_name(&key(Key::ArrowLeft, Modifiers::NONE)).as_deref(),
        Some("Left")
    );
    assert_eq!(
        key_name(&key(Key::Num3, Modifiers::NONE)).as_deref(),
        Some("3")
    );
    assert_eq!(key_name(&key(Key::C, Modifiers::CTRL)), None, "a shortcut");
    assert_eq!(
        key_name(&key(Key::F5, Modifiers::NONE)),
        None,
        "a studio key"
    );
    assert_eq!(key_name(&Event::Text(";".into())).as_deref(), Some(";"));
    assert_eq!(
        key_name(&Event::Text("c".into())),
        None,
        "letters come as keys"
    );
}
