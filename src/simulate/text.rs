//! Readable report of a trace, for the CLI.

use super::util::owned;
use super::{Attempt, RequestTrace, TargetTry, Trace};
use std::fmt::Write;

fn node(id: Option<i64>, addr: &str) -> String {
    match id {
        Some(id) => format!("node {id}"),
        None if addr.is_empty() => owned("outside node"),
        None => owned(addr),
    }
}

fn request_line(r: &RequestTrace) -> String {
    let verdict = if !r.ok {
        owned("FAILED")
    } else if r.direct {
        format!(
            "OK but DIRECT egress from {} (the destination is dialed by that node itself, bypassing the exits)",
            node(r.direct_from_node_id, "")
        )
    } else if let Some(id) = r.exit_node_id {
        format!("OK via exit node {id}")
    } else if let Some(a) = &r.exit_addr {
        format!("OK via {a}")
    } else {
        owned("OK")
    };
    match &r.target {
        Some(t) => format!(
            "Request {} at t={} ms: {}, target {t}",
            r.index, r.time_ms, verdict
        ),
        None => format!("Request {} at t={} ms: {}", r.index, r.time_ms, verdict),
    }
}

/// One dial: a line, how the node was chosen, what was skipped, and why.
fn attempt_lines(s: &mut String, a: &Attempt) {
    // Two spaces per level, written in place: no indent string per dial.
    let indent = |s: &mut String| {
        for _ in 0..=a.depth {
            s.push_str("  ");
        }
    };
    indent(s);
    let status = if a.ok && a.carried {
        "ok"
    } else if a.ok {
        "ok for the router, request lost later"
    } else if a.alive {
        "FAILED (node alive, not marked)"
    } else {
        "FAILED (dead)"
    };
    let _ = writeln!(
        s,
        "#{} {} -> {} [{}] {}/{} {}, try {}/{}: {}",
        a.seq + 1,
        node(a.from_node_id, ""),
        node(a.to_node_id, &a.addr),
        a.addr,
        a.chain,
        a.hop,
        a.node,
        a.round + 1,
        a.rounds,
        status
    );
    indent(s);
    let _ = writeln!(s, "   chosen by {}", a.selection);
    for c in a.candidates.iter().filter(|c| !c.kept) {
        indent(s);
        let _ = writeln!(s, "   skipped {} ({}): {}", c.node, c.addr, c.reason);
    }
    indent(s);
    let _ = writeln!(s, "   {}", a.reason);
}

/// A forward request: its target tries, each with its dials.
fn target_lines(s: &mut String, r: &RequestTrace, tries: &[TargetTry]) {
    for t in tries {
        let dead = if t.dead { ", dead" } else { "" };
        let _ = writeln!(
            s,
            "  target try {}/{}: {} {}{dead}, chosen by {}",
            t.round + 1,
            t.rounds,
            t.node,
            t.target,
            t.selection
        );
        for c in t.candidates.iter().filter(|c| !c.kept) {
            let _ = writeln!(s, "   skipped {} ({}): {}", c.node, c.addr, c.reason);
        }
        for a in r.attempts.iter().skip(t.first_seq).take(t.dials) {
            attempt_lines(s, a);
        }
        let _ = write!(s, "   {}", t.reason);
        if let Some(until) = t.marked_until_ms {
            let _ = write!(s, "; left out until t={until} ms");
        }
        let _ = writeln!(s);
    }
    for k in r.skipped_healthy.iter().flatten() {
        let _ = writeln!(
            s,
            "  live target {} ({}) not tried: marked until t={} ms",
            k.node, k.target, k.until_ms
        );
    }
}

/// Renders the trace as plain text: one block per request, one line per dial.
pub fn trace_text(trace: &Trace) -> String {
    let mut s = String::new();
    let entry = match trace.entry_node_id {
        Some(id) => format!("node {id}"),
        None => owned("this node"),
    };
    let _ = write!(
        s,
        "Failover simulation: {} request(s) entering at {}",
        trace.summary.requests, entry
    );
    if let Some(f) = &trace.forward {
        let _ = write!(s, ", forward service {}", f.service);
    }
    let _ = writeln!(s);
    for r in &trace.requests {
        let _ = writeln!(s);
        let _ = writeln!(s, "{}", request_line(r));
        match &r.target_tries {
            Some(tries) => target_lines(&mut s, r, tries),
            None if r.attempts.is_empty() => {
                let _ = writeln!(s, "  (no dial)");
            }
            None => {
                for a in &r.attempts {
                    attempt_lines(&mut s, a);
                }
            }
        }
        let _ = writeln!(s, "  => {}", r.outcome);
    }
    let sm = &trace.summary;
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "Summary: {} ok, {} failed, {} direct egress; {} dials, {} failed",
        sm.ok, sm.failed, sm.direct, sm.attempts, sm.failed_attempts
    );
    if trace.truncated {
        let _ = writeln!(s, "Truncated: the attempt budget ran out.");
    }
    for n in &trace.notes {
        let _ = writeln!(s, "Note: {n}");
    }
    s
}
