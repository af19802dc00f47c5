//! Native benchmark. Times the planner and the checker on the
//! workloads written by `scripts/workloads.mjs` (the single generator shared
//! with the Node bench), with a timing breakdown of where a plan's time goes.
//!
//!     node scripts/workloads.mjs /tmp/wl
//!     cargo run --release --example bench_native -- /tmp/wl [--json OUT.json]
//!     cargo run --release --example bench_native -- --lifecycle
//!
//! The last form times only the lifecycle replay against planning the same
//! tunnel (64 entries x 64 exits, generated here; it also ends a full run).
//!
//! Each figure is the median of many timed runs after a warm-up.

use hop_policy::check::{check, check_text, CheckOptions};
use hop_policy::encode::to_string as plan_to_json;
use hop_policy::planner::plan;
use serde_json::{json, Value};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Runs `f` for warm-up, then repeatedly until both `min_runs` runs and
/// `budget` of wall time have passed (capped at `max_runs`); returns the median
/// duration of one call in nanoseconds. The fastest run is kept in `MINS`.
fn median_ns<R>(mut f: impl FnMut() -> R, budget: Duration) -> f64 {
    let warm = Instant::now();
    let mut warm_runs = 0;
    while warm_runs < 3 || (warm.elapsed() < budget / 5 && warm_runs < 1000) {
        black_box(f());
        warm_runs += 1;
    }
    let (min_runs, max_runs) = (15usize, 20_000usize);
    let mut samples = Vec::new();
    let start = Instant::now();
    while samples.len() < min_runs || (start.elapsed() < budget && samples.len() < max_runs) {
        let t = Instant::now();
        black_box(f());
        samples.push(t.elapsed().as_nanos() as f64);
    }
    samples.sort_by(|a, b| a.total_cmp(b));
    MINS.with(|m| m.borrow_mut().push(samples[0]));
    samples[samples.len() / 2]
}

thread_local! {
    /// The fastest run of every figure, in the order measured (a busy, shared
    /// machine inflates medians; the minimum shows the unloaded cost).
    static MINS: std::cell::RefCell<Vec<f64>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn take_mins() -> Vec<f64> {
    MINS.with(|m| std::mem::take(&mut *m.borrow_mut()))
}

/// Check options forcing the document kind (read the way callers pass them).
fn options(kind: &str) -> CheckOptions {
    CheckOptions::from_json(&serde_json::json!({ "kind": kind })).unwrap_or_default()
}

fn fmt_ns(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.1} us", ns / 1e3)
    }
}

fn fmt_bytes(b: usize) -> String {
    if b >= 1 << 20 {
        format!("{:.2} MB", b as f64 / (1u64 << 20) as f64)
    } else if b >= 1 << 10 {
        format!("{:.1} KB", b as f64 / 1024.0)
    } else {
        format!("{} B", b)
    }
}

/// A panel node row, as `scripts/workloads.mjs` writes them: remote rows carry
/// a share URL, a token and a port range.
fn node_row(id: i64, remote: bool) -> Value {
    let ip = format!("10.{}.{}.{}", (id >> 16) & 255, (id >> 8) & 255, id & 255);
    json!({
        "id": id, "name": format!("bench-{id}"), "serverIp": ip, "serverIpV4": ip,
        "serverIpV6": null, "port": "40000-49999", "tcpListenAddr": "[::]",
        "udpListenAddr": "[::]", "interfaceName": "", "status": 1,
        "isRemote": i64::from(remote),
        "remoteUrl": if remote { json!(format!("https://provider-{}.example.net", id % 7)) } else { Value::Null },
        "remoteToken": if remote { json!(format!("bench-share-token-{id}")) } else { Value::Null },
        "remoteConfig": if remote {
            json!(format!("{{\"shareId\":{id},\"portRangeStart\":50000,\"portRangeEnd\":59999}}"))
        } else { Value::Null },
    })
}

/// `tunnelWorkload({entries, hops: 0, exits})` of `scripts/workloads.mjs`: a
/// type-2 tunnel whose every other exit is federated, all `tls`/`fifo`.
fn direct_tunnel(entries: i64, exits: i64) -> Value {
    let item = |id: i64, port: Option<i64>| {
        let mut it = json!({"nodeId": id, "protocol": "tls", "strategy": "fifo"});
        if let Some(p) = port {
            it["port"] = json!(p);
        }
        it
    };
    let (mut nodes, mut federation) = (Vec::new(), serde_json::Map::new());
    let entry_items: Vec<Value> = (1..=entries)
        .map(|id| {
            nodes.push(node_row(id, false));
            item(id, None)
        })
        .collect();
    let exit_items: Vec<Value> = (0..exits)
        .map(|i| {
            let (id, remote) = (entries + 1 + i, i % 2 == 1);
            nodes.push(node_row(id, remote));
            let port = if remote { 50000 } else { 40000 } + id;
            if remote {
                federation.insert(
                    id.to_string(),
                    json!({"runtimeId": 100000 + id, "allocatedPort": port,
                        "tcpListenAddr": "[::]", "interfaceName": ""}),
                );
            }
            item(id, Some(port))
        })
        .collect();
    json!({
        "tunnel": {"id": 4242, "name": "bench-tunnel-4242", "type": 2, "ipPreference": "",
            "inNodeId": entry_items, "chainNodes": [], "outNodeId": exit_items},
        "nodes": nodes,
        "federation": federation,
    })
}

/// `lifecycleJson` per step against `planTunnelJson` of the same tunnel
/// (text in, text out, natively), in one run: one apply, and apply, release,
/// apply (its time divided by its 3 steps).
fn bench_lifecycle(budget: Duration) -> Value {
    let input = direct_tunnel(64, 64);
    let input_text = input.to_string();
    let steps = |ops: &[&str]| {
        let list: Vec<Value> = ops
            .iter()
            .map(|op| match *op {
                "apply" => json!({"op": "apply", "input": input}),
                other => json!({"op": other}),
            })
            .collect();
        Value::from(list).to_string()
    };
    let (one, three) = (steps(&["apply"]), steps(&["apply", "release", "apply"]));
    let lifecycle = |text: &str| match hop_policy::api::lifecycle_json(text) {
        Ok(out) => out.len(),
        Err(e) => {
            eprintln!("lifecycle 64x64: {}", e.message);
            std::process::exit(1)
        }
    };
    let plan_bytes = hop_policy::api::plan_json(&input_text, None).map_or(0, |t| t.len());
    let report_bytes = lifecycle(&three);
    // Timed in round robin (each round calls the three once), so a change of
    // the machine's load falls on all of them; ratios are per round.
    let calls: [&dyn Fn() -> usize; 3] = [
        &|| hop_policy::api::plan_json(&input_text, None).map_or(0, |t| t.len()),
        &|| lifecycle(&one),
        &|| lifecycle(&three),
    ];
    for call in calls {
        black_box(call());
    }
    let mut rounds: Vec<[f64; 3]> = Vec::new();
    let start = Instant::now();
    while rounds.len() < 15 || (start.elapsed() < budget * 3 && rounds.len() < 1000) {
        let mut round = [0.0; 3];
        for (slot, call) in round.iter_mut().zip(calls) {
            let t = Instant::now();
            black_box(call());
            *slot = t.elapsed().as_nanos() as f64;
        }
        round[2] /= 3.0;
        rounds.push(round);
    }
    let median = |f: &dyn Fn(&[f64; 3]) -> f64| {
        let mut v: Vec<f64> = rounds.iter().map(f).collect();
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    };
    let t = [median(&|r| r[0]), median(&|r| r[1]), median(&|r| r[2])];
    let (one_ratio, three_ratio) = (median(&|r| r[1] / r[0]), median(&|r| r[2] / r[0]));
    println!(
        "lifecycle 64x64 (input {}, plan {}, report of 3 steps {}; median of {} rounds):",
        fmt_bytes(input_text.len()),
        fmt_bytes(plan_bytes),
        fmt_bytes(report_bytes),
        rounds.len()
    );
    println!(
        "  api::plan                                  {:>10}",
        fmt_ns(t[0])
    );
    println!(
        "  api::lifecycle [apply]                     {:>10}  {:.2}x the plan",
        fmt_ns(t[1]),
        one_ratio
    );
    println!(
        "  api::lifecycle [apply, release, apply] / 3 {:>10}  {:.2}x the plan",
        fmt_ns(t[2]),
        three_ratio
    );
    json!({"workload": "lifecycle-64x64", "inputBytes": input_text.len(), "planBytes": plan_bytes,
        "rounds": rounds.len(),
        "ns": {"plan": t[0], "applyStep": t[1], "applyReleaseApplyPerStep": t[2]},
        "ratio": {"applyStep": one_ratio, "applyReleaseApplyPerStep": three_ratio}})
}

/// The crate's JSON reader against what it replaces, on `text`: serde_json's
/// `from_str::<Value>` followed by the limit walk (serde_json counts no
/// limits while reading). README, "Layout", cites these figures.
fn bench_reading(text: &str, budget: Duration) {
    let limits = hop_policy::limits::Limits::default();
    take_mins();
    let t_reader = median_ns(
        || hop_policy::limits::from_str_within(text, &limits).map(|v| v.is_object()),
        budget,
    );
    let t_serde = median_ns(
        || {
            let v = serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
            hop_policy::limits::check_value(&v, &limits).map(|_| v.is_object())
        },
        budget,
    );
    println!(
        "reading config-10k ({}) into a Value within the default limits: the crate's reader {}, serde_json then the limit walk {} ({:.2}x)",
        fmt_bytes(text.len()),
        fmt_ns(t_reader),
        fmt_ns(t_serde),
        t_serde / t_reader
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let budget = Duration::from_millis(
        std::env::var("BENCH_BUDGET_MS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1500),
    );
    if args.iter().any(|a| a == "--lifecycle") {
        bench_lifecycle(budget);
        return;
    }
    let dir = match args.first() {
        Some(d) if !d.starts_with("--") => d.clone(),
        _ => {
            eprintln!("usage: bench_native WORKLOAD_DIR [--json OUT.json] | --lifecycle   (write the dir with: node scripts/workloads.mjs DIR)");
            std::process::exit(2);
        }
    };
    let json_out = args
        .iter()
        .position(|a| a == "--json")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let read = |name: &str| -> String {
        let path = format!("{}/{}", dir, name);
        std::fs::read_to_string(&path).unwrap_or_else(|e| {
            eprintln!("cannot read {}: {}", path, e);
            std::process::exit(2)
        })
    };
    let manifest: Value = serde_json::from_str(&read("manifest.json")).unwrap_or_else(|e| {
        eprintln!("manifest.json is not JSON: {}", e);
        std::process::exit(2)
    });
    let names: Vec<String> = manifest["workloads"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|w| w["name"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();

    let mut results = Vec::new();
    let mut min_rows = Vec::new();
    println!(
        "native (release, median of runs after warm-up; budget {} ms per figure)",
        budget.as_millis()
    );
    println!(
        "{:<9} {:>9} {:>9} | {:>10} {:>10} {:>10} {:>10} | {:>10} {:>10} | {:>10} {:>9}",
        "workload",
        "input",
        "plan",
        "parse in",
        "plan()",
        "to_string",
        "api::plan",
        "to_value",
        "check",
        "floor(Val)",
        "ns/B"
    );
    for name in &names {
        let input_text = read(&format!("{}.json", name));
        let input: Value = match serde_json::from_str(&input_text) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("{}: input is not JSON: {}", name, e);
                std::process::exit(2)
            }
        };
        let p = plan(&input, &Default::default());
        let plan_text = plan_to_json(&p);
        if let Some(err) = &p.error {
            eprintln!(
                "{}: the planner rejected the workload: {} ({})",
                name, err.message_en, err.code
            );
            std::process::exit(1);
        }
        let plan_value: Value = serde_json::from_str(&plan_text).unwrap_or(Value::Null);
        let opts = options("plan");

        take_mins();
        let t_parse = median_ns(
            || serde_json::from_str::<Value>(&input_text).map(|v| v.is_object()),
            budget,
        );
        let t_plan = median_ns(|| plan(&input, &Default::default()), budget);
        let t_to_string = median_ns(|| plan_to_json(&p).len(), budget);
        let t_plan_json = median_ns(
            || hop_policy::api::plan_json(&input_text, None).map(|t| t.len()),
            budget,
        );
        let t_to_value = median_ns(|| serde_json::to_value(&p).map(|v| v.is_object()), budget);
        let t_check = median_ns(|| check(&plan_value, &opts).findings.len(), budget);
        let t_floor = median_ns(
            || serde_json::from_str::<Value>(&plan_text).map(|v| v.is_object()),
            budget,
        );
        let per_byte = t_plan_json / plan_text.len() as f64;
        let mins = take_mins();
        let findings = check(&plan_value, &opts).findings.len();
        println!(
            "{:<9} {:>9} {:>9} | {:>10} {:>10} {:>10} {:>10} | {:>10} {:>10} | {:>10} {:>9.2}",
            name,
            fmt_bytes(input_text.len()),
            fmt_bytes(plan_text.len()),
            fmt_ns(t_parse),
            fmt_ns(t_plan),
            fmt_ns(t_to_string),
            fmt_ns(t_plan_json),
            fmt_ns(t_to_value),
            fmt_ns(t_check),
            fmt_ns(t_floor),
            per_byte
        );
        let min = |i: usize| mins.get(i).copied().unwrap_or(f64::NAN);
        min_rows.push(format!(
            "{:<9} {:>9} {:>9} | {:>10} {:>10} {:>10} {:>10} | {:>10} {:>10} | {:>10} {:>9.2}",
            name,
            "",
            "",
            fmt_ns(min(0)),
            fmt_ns(min(1)),
            fmt_ns(min(2)),
            fmt_ns(min(3)),
            fmt_ns(min(4)),
            fmt_ns(min(5)),
            fmt_ns(min(6)),
            min(3) / plan_text.len() as f64
        ));
        results.push(serde_json::json!({
            "workload": name, "inputBytes": input_text.len(), "planBytes": plan_text.len(),
            "error": Value::Null, "findings": findings,
            "ns": {"parseInput": t_parse, "plan": t_plan, "toString": t_to_string, "planJson": t_plan_json,
                    "toValue": t_to_value, "check": t_check, "parsePlanValue": t_floor},
            "minNs": {"parseInput": min(0), "plan": min(1), "toString": min(2), "planJson": min(3),
                    "toValue": min(4), "check": min(5), "parsePlanValue": min(6)},
        }));
    }

    println!("fastest run of each figure:");
    for row in &min_rows {
        println!("{}", row);
    }

    // One node's config with 10,000 services.
    let cfg_text = read("config-10k.json");
    let cfg: Value = serde_json::from_str(&cfg_text).unwrap_or(Value::Null);
    let cfg_opts = options("config");
    bench_reading(&cfg_text, budget);
    take_mins();
    let t_cfg = median_ns(|| check(&cfg, &cfg_opts).findings.len(), budget);
    let t_cfg_parse = median_ns(
        || serde_json::from_str::<Value>(&cfg_text).map(|v| v.is_object()),
        budget,
    );
    let t_cfg_text = median_ns(|| check_text(&cfg_text, &cfg_opts).findings.len(), budget);
    let cfg_mins = take_mins();
    let cfg_findings = check(&cfg, &cfg_opts).findings.len();
    println!(
        "config-10k ({}): check_text (text in, what checkDocumentJson runs) {} (fastest {}; {} findings); check(Value) {} (fastest {}); parse text to Value {} (fastest {})",
        fmt_bytes(cfg_text.len()),
        fmt_ns(t_cfg_text),
        fmt_ns(cfg_mins.get(2).copied().unwrap_or(f64::NAN)),
        cfg_findings,
        fmt_ns(t_cfg),
        fmt_ns(cfg_mins.first().copied().unwrap_or(f64::NAN)),
        fmt_ns(t_cfg_parse),
        fmt_ns(cfg_mins.get(1).copied().unwrap_or(f64::NAN))
    );
    // The same 20,000-row node table with ordinary ids and with ids that
    // collide under 32-bit FxHash (what wasm32 hashed with): planned alike.
    if let Some(table) = manifest.get("nodeTable") {
        let file = |which: &str| {
            table[which]["file"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        };
        let table_options = table["options"].to_string();
        let time = |text: &str| {
            median_ns(
                || hop_policy::api::plan_json(text, Some(&table_options)).map(|t| t.len()),
                budget,
            )
        };
        let (plain, colliding) = (read(&file("plain")), read(&file("colliding")));
        for (name, text) in [("plain", &plain), ("colliding", &colliding)] {
            let planned = hop_policy::api::plan_json(text, Some(&table_options))
                .map(|t| serde_json::from_str::<Value>(&t).unwrap_or(Value::Null));
            match planned {
                Ok(p) if p["error"].is_null() => {}
                Ok(p) => {
                    eprintln!(
                        "node table {}: the planner rejected it: {}",
                        name, p["error"]
                    );
                    std::process::exit(1);
                }
                Err(e) => {
                    eprintln!("node table {}: {}", name, e.message);
                    std::process::exit(1);
                }
            }
        }
        let (t_plain, t_colliding) = (time(&plain), time(&colliding));
        take_mins();
        println!(
            "node table ({} rows): api::plan with ordinary ids {}, with ids colliding under 32-bit FxHash {} (ratio {:.2}x)",
            table["rows"],
            fmt_ns(t_plain),
            fmt_ns(t_colliding),
            t_colliding / t_plain
        );
        results.push(
            serde_json::json!({"workload": "node-table", "rows": table["rows"],
            "ns": {"plain": t_plain, "colliding": t_colliding}}),
        );
    }
    println!("columns: parse in = input text -> Value; plan() = Value -> typed Plan; to_string = Plan -> JSON text;");
    println!("         api::plan = text in -> text out (all of it); to_value = Plan -> Value; check = check(plan Value);");
    println!(
        "         floor(Val) = plan text -> serde_json::Value; ns/B = api::plan time per plan byte"
    );
    results.push(serde_json::json!({"workload": "config-10k", "inputBytes": cfg_text.len(), "findings": cfg_findings,
        "ns": {"check": t_cfg, "parseInput": t_cfg_parse, "checkText": t_cfg_text},
        "minNs": {"check": cfg_mins.first().copied(), "parseInput": cfg_mins.get(1).copied(), "checkText": cfg_mins.get(2).copied()}}));
    results.push(bench_lifecycle(budget));

    if let Some(out) = json_out {
        let text = serde_json::to_string_pretty(&Value::Array(results)).unwrap_or_default();
        if let Err(e) = std::fs::write(&out, text) {
            eprintln!("cannot write {}: {}", out, e);
            std::process::exit(2);
        }
    }
}
