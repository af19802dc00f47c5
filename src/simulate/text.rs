//! Readable report of a trace, for the CLI.

use super::util::owned;
use super::{RequestTrace, Trace};
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
    format!("Request {} at t={} ms: {}", r.index, r.time_ms, verdict)
}

/// Renders the trace as plain text: one block per request, one line per dial.
pub fn trace_text(trace: &Trace) -> String {
    let mut s = String::new();
    let entry = match trace.entry_node_id {
        Some(id) => format!("node {id}"),
        None => owned("this node"),
    };
    let _ = writeln!(
        s,
        "Failover simulation: {} request(s) entering at {}",
        trace.summary.requests, entry
    );
    for r in &trace.requests {
        let _ = writeln!(s);
        let _ = writeln!(s, "{}", request_line(r));
        if r.attempts.is_empty() {
            let _ = writeln!(s, "  (no dial)");
        }
        for a in &r.attempts {
            // Two spaces per level, written in place: no indent string per dial.
            let indent = |s: &mut String| {
                for _ in 0..=a.depth {
                    s.push_str("  ");
                }
            };
            indent(&mut s);
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
            indent(&mut s);
            let _ = writeln!(s, "   chosen by {}", a.selection);
            for c in a.candidates.iter().filter(|c| !c.kept) {
                indent(&mut s);
                let _ = writeln!(s, "   skipped {} ({}): {}", c.node, c.addr, c.reason);
            }
            indent(&mut s);
            let _ = writeln!(s, "   {}", a.reason);
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
