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

/// Appends `n` as `{n}` writes it ([`with_number`]'s way).
pub(crate) fn push_number(out: &mut String, n: impl itoa::Integer) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// `s.trim()`. Most strings have no space at either end, and two ASCII end
/// bytes that are not spaces tell it at once: std's `trim` decodes characters
/// through a call the `.wasm` does not inline.
#[inline(always)]
pub(crate) fn trim(s: &str) -> &str {
    let plain = |b: Option<&u8>| b.is_some_and(|&b| b > b' ' && b.is_ascii());
    let bytes = s.as_bytes();
    if bytes.is_empty() || (plain(bytes.first()) && plain(bytes.last())) {
        s
    } else {
        s.trim()
    }
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
        let mut out = String::from("a");
        super::push_number(&mut out, i64::MIN);
        assert_eq!(out, format!("a{}", i64::MIN));
    }

    /// Every one-, two- and three-character string over ASCII, the Unicode
    /// spaces and a few other characters trims as `str::trim` trims it.
    #[test]
    fn trims_what_std_trims() {
        let mut chars: Vec<char> = (0u8..=0x7f).map(char::from).collect();
        chars.extend([
            '\u{85}', '\u{a0}', '\u{1680}', '\u{2000}', '\u{200b}', '\u{2028}', '\u{3000}', 'é',
            '中',
        ]);
        let mut texts = vec![String::new()];
        for a in &chars {
            texts.push(a.to_string());
            for b in &chars {
                texts.push(format!("{a}{b}"));
                texts.push(format!("{a}x{b}"));
            }
        }
        for t in &texts {
            assert_eq!(super::trim(t), t.trim(), "{t:?}");
        }
        assert_eq!(super::trim(" \u{3000}a b\t"), "a b");
    }
}
