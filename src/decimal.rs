//! Decimal text to the nearest `f64` (ties to even), as Go's
//! `strconv.ParseFloat` and serde_json's `float_roundtrip` parser round it.
//!
//! The standard library's parser does the same, but it brings about 18 KB
//! into the `.wasm` (an Eisel-Lemire table and a big-decimal fallback). JSON
//! configs hold few non-integers, so this one favours size: an exact small
//! case in plain `f64` arithmetic, and otherwise a big-integer division that
//! yields the leading bits of the value and whether anything is left over.
//!
//! `tests/json_reader.rs` and the `json` fuzz target compare every result
//! with serde_json's; the unit tests below add the halfway and boundary cases.

/// A non-negative big integer, 32-bit limbs, least significant first, no
/// high zero limbs.
#[derive(Clone, PartialEq, Eq)]
struct Big(Vec<u32>);

impl Big {
    fn bits(&self) -> u32 {
        match self.0.last() {
            None => 0,
            Some(top) => (self.0.len() as u32 - 1) * 32 + (32 - top.leading_zeros()),
        }
    }

    /// `self * m + add`.
    fn mul_add(&mut self, m: u32, add: u32) {
        let mut carry = u64::from(add);
        for limb in self.0.iter_mut() {
            let v = u64::from(*limb) * u64::from(m) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
    }

    fn mul_pow10(&mut self, mut k: u32) {
        while k >= 9 {
            self.mul_add(1_000_000_000, 0);
            k -= 9;
        }
        self.mul_add(10u32.pow(k), 0);
    }

    fn shl(&mut self, bits: u32) {
        let (limbs, bits) = ((bits / 32) as usize, bits % 32);
        if bits != 0 {
            let mut carry = 0;
            for limb in self.0.iter_mut() {
                let v = (*limb << bits) | carry;
                carry = *limb >> (32 - bits);
                *limb = v;
            }
            if carry != 0 {
                self.0.push(carry);
            }
        }
        if limbs != 0 && !self.0.is_empty() {
            self.0.splice(0..0, std::iter::repeat_n(0, limbs));
        }
    }

    /// `self * m`, in 32-bit halves of `m` with 64-bit arithmetic (a
    /// 128-bit multiply is a library call in wasm).
    fn times(&self, m: u64) -> Big {
        let mut out = vec![0u32; self.0.len() + 3];
        for (shift, part) in [(0, m as u32), (1, (m >> 32) as u32)] {
            if part == 0 {
                continue;
            }
            let mut carry = 0u64;
            let mut i = shift;
            for limb in &self.0 {
                if let Some(slot) = out.get_mut(i) {
                    // At most (2^32 - 1)^2 + 2 (2^32 - 1) = 2^64 - 1.
                    let v = u64::from(*limb) * u64::from(part) + u64::from(*slot) + carry;
                    *slot = v as u32;
                    carry = v >> 32;
                }
                i += 1;
            }
            while carry != 0 {
                let Some(slot) = out.get_mut(i) else { break };
                let v = u64::from(*slot) + carry;
                *slot = v as u32;
                carry = v >> 32;
                i += 1;
            }
        }
        while out.last() == Some(&0) {
            out.pop();
        }
        Big(out)
    }

    /// About `self × 2^(k - bits)` (its leading `k` bits, `k ≤ 120`),
    /// from its top four limbs: at most one part in 2^90 below the exact
    /// value.
    fn leading(&self, k: u32) -> u128 {
        let mut acc: u128 = 0;
        let mut taken = 0;
        for limb in self.0.iter().rev().take(4) {
            acc = (acc << 32) | u128::from(*limb);
            taken += 1;
        }
        let in_acc = self.bits() - 32 * (self.0.len() as u32 - taken);
        if in_acc >= k {
            acc >> (in_acc - k)
        } else {
            acc << (k - in_acc)
        }
    }

    fn cmp(&self, other: &Big) -> std::cmp::Ordering {
        self.0.len().cmp(&other.0.len()).then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}

/// The powers of ten that are exact doubles.
const POW10: [f64; 23] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/// Decimal digits beyond this many only matter as "something non-zero
/// follows": a value halfway between two doubles has at most 767
/// significant digits.
const MAX_DIGITS: usize = 800;

/// The value of a JSON number token (`-?digits[.digits][(e|E)[+-]digits]`,
/// already checked), or `None` when it is too large for an `f64`.
pub fn parse(token: &str) -> Option<f64> {
    let (negative, body) = match token.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, token),
    };
    let (mantissa, exp_text) = match body.find(['e', 'E']) {
        Some(i) => (body.get(..i)?, body.get(i + 1..)?),
        None => (body, ""),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    // The exponent, saturated far beyond any double's range.
    let mut exp: i64 = 0;
    let exp_digits = exp_text.trim_start_matches(['+', '-']);
    for d in exp_digits.bytes() {
        exp = (exp * 10 + i64::from(d - b'0')).min(1 << 40);
    }
    if exp_text.starts_with('-') {
        exp = -exp;
    }
    exp -= frac_part.len() as i64;
    // Significant digits: no leading zeros, no trailing zeros.
    let significant = || int_part.bytes().chain(frac_part.bytes()).skip_while(|&d| d == b'0');
    let (mut count, mut trailing, mut small) = (0u32, 0u32, 0u64);
    for d in significant() {
        count += 1;
        trailing = if d == b'0' { trailing + 1 } else { 0 };
        if count <= 19 {
            small = small * 10 + u64::from(d - b'0');
        }
    }
    exp += i64::from(trailing);
    // Exact small case: at most 15 digits (below 2^53) and a power of ten
    // that is itself exact, so one rounding, in the one operation.
    let magnitude = match POW10.get(exp.unsigned_abs() as usize) {
        _ if count == 0 => 0.0,
        Some(&p) if count - trailing <= 15 && count <= 19 => {
            let d = (small / 10u64.pow(trailing)) as f64;
            if exp < 0 {
                d / p
            } else {
                d * p
            }
        }
        _ => {
            let mut digits: Vec<u8> = significant().take((count - trailing) as usize).collect();
            magnitude(&mut digits, exp)?
        }
    };
    Some(if negative { -magnitude } else { magnitude })
}

thread_local! {
    /// 10^k for the k already needed (at most 343 + 801 of them): a
    /// document of many hard numbers builds each power once.
    static POWERS: std::cell::RefCell<Vec<Option<Big>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` on 10^k, built once per thread.
fn with_pow10<R>(k: usize, f: impl FnOnce(&Big) -> R) -> R {
    POWERS.with(|cell| {
        let mut powers = cell.borrow_mut();
        if powers.len() <= k {
            powers.resize(k + 1, None);
        }
        let slot = powers.get_mut(k);
        match slot {
            Some(Some(p)) => f(p),
            Some(slot) => {
                let mut p = Big(vec![1]);
                p.mul_pow10(k as u32);
                f(slot.insert(p))
            }
            None => f(&Big(vec![1])), // unreachable: the table was just grown
        }
    })
}

/// `digits × 10^exp` rounded to the nearest double.
fn magnitude(digits: &mut Vec<u8>, mut exp: i64) -> Option<f64> {
    let n = digits.len() as i64;
    if n == 0 || n + exp < -343 {
        return Some(0.0);
    }
    if n + exp > 310 {
        return None;
    }
    if digits.len() > MAX_DIGITS {
        // Keep the first digits and a final 1 for "non-zero tail".
        let dropped = digits.len() - MAX_DIGITS;
        digits.truncate(MAX_DIGITS);
        digits.push(b'1');
        exp += dropped as i64 - 1;
    }
    let mut num = Big(Vec::new());
    for chunk in digits.chunks(9) {
        let v = chunk.iter().fold(0u32, |a, &c| a * 10 + u32::from(c - b'0'));
        num.mul_add(10u32.pow(chunk.len() as u32), v);
    }
    let f = if exp >= 0 {
        num.mul_pow10(exp as u32);
        quotient(num, &Big(vec![1]))
    } else {
        with_pow10(exp.unsigned_abs() as usize, |den| quotient(num, den))
    };
    Some(f).filter(|f| f.is_finite())
}

/// `num / den` rounded to the nearest double.
fn quotient(mut num: Big, den: &Big) -> f64 {
    // Scale so that q = floor(num / den) has 55 to 57 bits; the value is
    // q × 2^-s, plus a remainder that only says "above q".
    let s = 56 - (i64::from(num.bits()) - i64::from(den.bits()));
    let shifted;
    let den = if s >= 0 {
        num.shl(s as u32);
        den
    } else {
        let mut d = den.clone();
        d.shl(s.unsigned_abs() as u32);
        shifted = d;
        &shifted
    };
    // An estimate from the leading bits: at most one above or below the
    // quotient (both are read low by under one part in 2^63), then
    // corrected: q is the largest with den × q <= num.
    let estimate = num.leading(120) / den.leading(64).max(1);
    let mut q = u64::try_from(estimate).unwrap_or(u64::MAX >> 6).saturating_sub(1);
    let mut product = den.times(q);
    // Not needed by the bound above; keeps a mistake in it from rounding wrong.
    while q > 0 && product.cmp(&num).is_gt() {
        q -= 1;
        product = den.times(q);
    }
    loop {
        let next = den.times(q + 1);
        if next.cmp(&num).is_gt() {
            break;
        }
        q += 1;
        product = next;
    }
    let sticky = product != num;
    round(q, s, sticky)
}

/// `q × 2^-s` (plus a little when `sticky`) as the nearest double; `q` has
/// at least 54 significant bits.
fn round(q: u64, s: i64, sticky: bool) -> f64 {
    let len = i64::from(64 - q.leading_zeros());
    // Bits to drop: down to 53 of them, or more below the normal range
    // (the last bit of a subnormal is 2^-1074).
    let drop = (len - 53).max(s - 1074);
    if drop > len {
        return 0.0; // below half the smallest subnormal
    }
    let shift = drop.clamp(1, 64) as u32;
    let mut m = q.checked_shr(shift).unwrap_or(0);
    let rest = q & (u64::MAX >> (64 - shift));
    let half = 1u64 << (shift - 1);
    if rest > half || (rest == half && (sticky || m & 1 == 1)) {
        m += 1;
    }
    let mut exp2 = i64::from(shift) - s; // value = m × 2^exp2
    if m == 1 << 53 {
        m >>= 1;
        exp2 += 1;
    }
    if m >= 1 << 52 {
        let biased = exp2 + 52 + 1023;
        if biased >= 2047 {
            return f64::INFINITY;
        }
        f64::from_bits(((biased as u64) << 52) | (m & ((1 << 52) - 1)))
    } else {
        f64::from_bits(m) // subnormal (or zero): exp2 is -1074
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_the_standard_parser() {
        let cases = [
            "0", "-0", "0.0", "1", "1.5", "0.1", "0.2", "0.3", "123456.789", "1e22", "1e23", "9007199254740993", "9007199254740992.5",
            "2.2250738585072011e-308", "2.2250738585072014e-308", "4.9406564584124654e-324", "2.4703282292062327e-324",
            "2.4703282292062328e-324", "5e-324", "1e-400", "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
            "1.00000000000000011102230246251565404236316680908203125", "1.00000000000000011102230246251565404236316680908203124",
            "1.00000000000000011102230246251565404236316680908203126", "7.2057594037927933e16", "8.98846567431158e307", "1e308",
            "123456789012345678901234567890e-20", "0.000000000000000000000000000001e30", "4503599627370496.5", "4503599627370497.5",
            "2.225073858507201136057409796709131975934819546861e-308", "3e-324", "2e-324", "7e-324", "1e-323",
        ];
        for t in cases {
            let want: f64 = t.parse().unwrap();
            let got = parse(t);
            if want.is_infinite() {
                assert_eq!(got, None, "{t}");
            } else {
                assert_eq!(got.map(f64::to_bits), Some(want.to_bits()), "{t}: {got:?} vs {want:e}");
            }
        }
        // A long tail of digits just past a halfway point.
        let long = format!("1.00000000000000011102230246251565404236316680908203125{}1", "0".repeat(900));
        assert_eq!(parse(&long).map(f64::to_bits), Some(long.parse::<f64>().unwrap().to_bits()));
        let long = format!("1.00000000000000011102230246251565404236316680908203125{}", "0".repeat(900));
        assert_eq!(parse(&long).map(f64::to_bits), Some(long.parse::<f64>().unwrap().to_bits()));
    }

    #[test]
    fn random_values_round_trip() {
        let mut seed: u64 = 0x1234_5678_9abc_def1;
        for _ in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let f = f64::from_bits(seed);
            if !f.is_finite() {
                continue;
            }
            for text in [format!("{f:e}"), format!("{:.17e}", f), format!("{:.25e}", f), format!("{:.3e}", f)] {
                let want: f64 = text.parse().unwrap();
                let got = parse(&text.replace("e", "E"));
                if want.is_infinite() {
                    assert_eq!(got, None, "{text}");
                } else {
                    assert_eq!(got.map(f64::to_bits), Some(want.to_bits()), "{text}");
                }
            }
        }
    }
}
