fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let text = std::fs::read_to_string("/tmp/wl/config-10k.json").unwrap();
    let opts = hop_policy::check::CheckOptions::default();
    let mut total = 0;
    for _ in 0..n {
        let r = hop_policy::check::check_text(&text, &opts);
        total += r.findings.len();
    }
    println!("{total}");
}
