//! Small strings the planner and the checker build by the thousand.

/// `head`, `sep` and `n`, as `format!("{head}{sep}{n}")` writes them, in one
/// allocation and without the formatting machinery (it cost more than the
/// rest of the work in the checker's JSON Pointers and the planner's names).
pub(crate) fn with_number(head: &str, sep: &str, n: impl itoa::Integer) -> String {
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(n);
    let mut out = String::with_capacity(head.len() + sep.len() + digits.len());
    out.push_str(head);
    out.push_str(sep);
    out.push_str(digits);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn writes_what_format_writes() {
        assert_eq!(
            super::with_number("node", "_", 12usize),
            format!("{}_{}", "node", 12)
        );
        assert_eq!(super::with_number("h", ":", -5i64), "h:-5");
        assert_eq!(super::with_number("", "", 0u32), "0");
    }
}
