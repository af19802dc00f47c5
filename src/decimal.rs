//! Decimal text to the nearest `f64` (ties to even), as Go's
//! `strconv.ParseFloat` and serde_json's `float_roundtrip` parser round it;
//! and back: the shortest decimal digits that read as a given `f64`
//! ([`shortest`]), which serde_json's writer, Go's `strconv` and JavaScript
//! all print.
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

    /// `self * m`, `m` in two 32-bit limbs.
    fn times(&self, m: u64) -> Big {
        self.times_limbs(&[m as u32, (m >> 32) as u32])
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
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    fn times_big(&self, other: &Big) -> Big {
        self.times_limbs(&other.0)
    }

    /// `self × other` (limbs least significant first), schoolbook, with
    /// 64-bit arithmetic only (a 128-bit multiply is a library call in wasm).
    fn times_limbs(&self, other: &[u32]) -> Big {
        // Rows by the shorter operand (often the two limbs of a u64), so
        // the inner loop is the long one.
        let (short, long) = if other.len() <= self.0.len() {
            (other, self.0.as_slice())
        } else {
            (self.0.as_slice(), other)
        };
        let mut out = vec![0u32; self.0.len() + other.len()];
        for (i, a) in short.iter().enumerate() {
            if *a == 0 {
                continue;
            }
            let mut carry = 0u64;
            let mut at = i;
            for b in long {
                if let Some(slot) = out.get_mut(at) {
                    // At most (2^32 - 1)^2 + 2 (2^32 - 1) = 2^64 - 1.
                    let v = u64::from(*a) * u64::from(*b) + u64::from(*slot) + carry;
                    *slot = v as u32;
                    carry = v >> 32;
                }
                at += 1;
            }
            while carry != 0 {
                let Some(slot) = out.get_mut(at) else { break };
                let v = u64::from(*slot) + carry;
                *slot = v as u32;
                carry = v >> 32;
                at += 1;
            }
        }
        let mut b = Big(out);
        b.trim();
        b
    }

    fn from_u64(v: u64) -> Big {
        let mut b = Big(vec![v as u32, (v >> 32) as u32]);
        b.trim();
        b
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn plus(&self, other: &Big) -> Big {
        let mut out = Vec::with_capacity(self.0.len().max(other.0.len()) + 1);
        let mut carry = 0u64;
        for i in 0..self.0.len().max(other.0.len()) {
            let v = u64::from(self.0.get(i).copied().unwrap_or(0))
                + u64::from(other.0.get(i).copied().unwrap_or(0))
                + carry;
            out.push(v as u32);
            carry = v >> 32;
        }
        if carry != 0 {
            out.push(carry as u32);
        }
        Big(out)
    }

    /// `self -= other`, for `other <= self`.
    fn minus(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for (i, limb) in self.0.iter_mut().enumerate() {
            let v = i64::from(*limb) - i64::from(other.0.get(i).copied().unwrap_or(0)) - borrow;
            *limb = v as u32;
            borrow = i64::from(v < 0);
        }
        self.trim();
    }
}

/// The powers of ten that are exact doubles.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

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
    let significant = || {
        int_part
            .bytes()
            .chain(frac_part.bytes())
            .skip_while(|&d| d == b'0')
    };
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
        let v = chunk
            .iter()
            .fold(0u32, |a, &c| a * 10 + u32::from(c - b'0'));
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
    let mut q = u64::try_from(estimate)
        .unwrap_or(u64::MAX >> 6)
        .saturating_sub(1);
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

/// The shortest decimal digits that read back as `f` (finite, not zero;
/// the sign is ignored), as `(digits, point)` with `f = 0.digits × 10^point`,
/// `digits` ASCII without leading or trailing zeros. Of several shortest
/// candidates, the nearest to `f`; of two equally near, the one ending in an
/// even digit. That is what serde_json's writer (zmij), Go's `strconv` and
/// JavaScript print; the unit tests in `json.rs` and `tests/json_reader.rs`
/// compare it with serde_json's output.
///
/// Exact integer arithmetic, no tables (Steele and White's free-format
/// method as Burger and Dybvig give it): the value and the two ends of the
/// interval that reads back as it are fractions over one denominator, and
/// digits are taken until the rest falls inside the interval. In `u128`
/// when everything fits (about 1e-20 to 1e34), else in big integers. Slower
/// than serde_json's table-driven writer, and about 14 KB smaller in the
/// `.wasm` (its tables are most of that).
pub fn shortest(f: f64) -> Option<(Vec<u8>, i32)> {
    if !f.is_finite() || f == 0.0 {
        return None;
    }
    let bits = f.to_bits() & !(1u64 << 63);
    let biased = (bits >> 52) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    let (m, e) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), biased - 1075)
    };
    // Ends of the interval count when ties read to even, i.e. `m` is even.
    let inclusive = m % 2 == 0;
    // At a power of two (but not the smallest normal) the gap below is half
    // the gap above.
    let uneven = u32::from(fraction == 0 && biased > 1);
    // f = r / s and the interval is (r - m_minus, r + m_plus) / s, with
    // r = m × 2^r_shift, s = 2^s_shift, m_plus = 2^plus_shift, m_minus = 2^minus_shift.
    let (r_shift, s_shift, plus_shift, minus_shift) = if e >= 0 {
        let e = e as u32;
        (e + 1 + uneven, 1 + uneven, e + uneven, e)
    } else {
        (1 + uneven, e.unsigned_abs() + 1 + uneven, uneven, 0)
    };
    // An estimate of the decimal exponent from the bit length, never above
    // the true one ([`generate`] raises it).
    let bit_len = 64 - m.leading_zeros() as i32;
    let k = (f64::from(bit_len - 1 + e) * std::f64::consts::LOG10_2 - 1e-10).ceil() as i32;
    // In u128 when every number fits.
    let small = (|| {
        let pow2 = |shift: u32| (shift < 120).then(|| 1u128 << shift);
        if r_shift + bit_len as u32 >= 120 {
            return None;
        }
        let mut r = u128::from(m) << r_shift;
        let (mut s, mut m_plus, mut m_minus) =
            (pow2(s_shift)?, pow2(plus_shift)?, pow2(minus_shift)?);
        let pow10 = 10u128.checked_pow(k.unsigned_abs())?;
        if k >= 0 {
            s = s.checked_mul(pow10)?;
        } else {
            r = r.checked_mul(pow10)?;
            m_plus = m_plus.checked_mul(pow10)?;
            m_minus = m_minus.checked_mul(pow10)?;
        }
        generate(r, s, m_plus, m_minus, k, inclusive)
    })();
    if small.is_some() {
        return small;
    }
    let pow2 = |shift: u32| {
        let mut b = Big(vec![1]);
        b.shl(shift);
        b
    };
    let (mut r, mut s, mut m_plus, mut m_minus) = (
        Big::from_u64(m),
        pow2(s_shift),
        pow2(plus_shift),
        pow2(minus_shift),
    );
    r.shl(r_shift);
    if k >= 0 {
        with_pow10(k as usize, |p| s = s.times_big(p));
    } else {
        with_pow10(k.unsigned_abs() as usize, |p| {
            r = r.times_big(p);
            m_plus = m_plus.times_big(p);
            m_minus = m_minus.times_big(p);
        });
    }
    generate(r, s, m_plus, m_minus, k, inclusive)
}

/// The arithmetic [`generate`] needs, in `u128` (where it may overflow:
/// `None`) and in [`Big`].
trait Nat: Sized {
    fn times10(&mut self) -> Option<()>;
    fn order(&self, other: &Self) -> std::cmp::Ordering;
    /// `self -= other`, for `other <= self`.
    fn take(&mut self, other: &Self);
    fn sum(&self, other: &Self) -> Option<Self>;
}

impl Nat for u128 {
    fn times10(&mut self) -> Option<()> {
        *self = self.checked_mul(10)?;
        Some(())
    }
    fn order(&self, other: &Self) -> std::cmp::Ordering {
        self.cmp(other)
    }
    fn take(&mut self, other: &Self) {
        *self = self.wrapping_sub(*other);
    }
    fn sum(&self, other: &Self) -> Option<Self> {
        self.checked_add(*other)
    }
}

impl Nat for Big {
    fn times10(&mut self) -> Option<()> {
        self.mul_add(10, 0);
        Some(())
    }
    fn order(&self, other: &Self) -> std::cmp::Ordering {
        self.cmp(other)
    }
    fn take(&mut self, other: &Self) {
        self.minus(other)
    }
    fn sum(&self, other: &Self) -> Option<Self> {
        Some(self.plus(other))
    }
}

/// The digits of `r / s` (see [`shortest`]), `k` being an estimate of the
/// decimal exponent that is at most a little low.
fn generate<N: Nat>(
    mut r: N,
    mut s: N,
    mut m_plus: N,
    mut m_minus: N,
    mut k: i32,
    inclusive: bool,
) -> Option<(Vec<u8>, i32)> {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let reaches = |c: std::cmp::Ordering| c == Greater || (inclusive && c == Equal);
    // Raise k until the interval's top is below 10^k.
    while reaches(r.sum(&m_plus)?.order(&s)) {
        s.times10()?;
        k += 1;
    }
    let mut digits = Vec::new();
    // A double has at most 17 significant digits; the bound only guards
    // against a mistake looping forever.
    while digits.len() < 40 {
        r.times10()?;
        m_plus.times10()?;
        m_minus.times10()?;
        let mut d = 0u8;
        while r.order(&s) != Less && d < 9 {
            r.take(&s);
            d += 1;
        }
        let low = reaches(m_minus.order(&r));
        let high = reaches(r.sum(&m_plus)?.order(&s));
        if !low && !high {
            digits.push(b'0' + d);
            continue;
        }
        let up = if low && high {
            // Both d and d + 1 read back: the nearer, the even one on a tie.
            match r.sum(&r)?.order(&s) {
                Less => false,
                Greater => true,
                Equal => d % 2 == 1,
            }
        } else {
            high
        };
        digits.push(b'0' + d + u8::from(up));
        break;
    }
    // A leading zero when only the interval's top reached 10^(k-1).
    let lead = digits.iter().take_while(|&&d| d == b'0').count();
    digits.drain(..lead);
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    Some((digits, k - lead as i32))
}

#[cfg(test)]
// Exact ties and boundary values, written with every digit on purpose.
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;

    fn digits(f: f64) -> (String, i32) {
        let (d, p) = shortest(f).unwrap();
        (String::from_utf8(d).unwrap(), p)
    }

    /// Shortest digits at the edges: the two ends of the range, a power of
    /// two whose lower gap is half its upper one, exact ties between two
    /// shortest candidates (the even digit wins), and the numbers whose
    /// interval's top reaches the next power of ten.
    #[test]
    fn shortest_digits_at_the_edges() {
        assert_eq!(digits(0.3), ("3".into(), 0));
        assert_eq!(digits(-0.3), ("3".into(), 0));
        assert_eq!(digits(123.456), ("123456".into(), 3));
        assert_eq!(digits(5e-324), ("5".into(), -323));
        assert_eq!(digits(f64::MAX), ("17976931348623157".into(), 309));
        assert_eq!(
            digits(f64::MIN_POSITIVE),
            ("22250738585072014".into(), -307)
        );
        assert_eq!(digits(1e23), ("1".into(), 24));
        assert_eq!(
            digits(2f64.powi(-1022) * 2.0),
            ("4450147717014403".into(), -307)
        );
        assert_eq!(digits(9007199254740992.0), ("9007199254740992".into(), 16));
        // 2^54 sits at a power of two: its lower neighbour is 2 away, its upper 4.
        assert_eq!(
            digits(18014398509481984.0),
            ("18014398509481984".into(), 17)
        );
        // An exact tie between ...797.2 and ...797.3 takes the even digit.
        assert_eq!(
            digits(1149636667324797.25),
            ("11496366673247972".into(), 16)
        );
        assert_eq!(shortest(0.0), None);
        assert_eq!(shortest(f64::NAN), None);
        assert_eq!(shortest(f64::INFINITY), None);
        // Every result reads back as the same double.
        for f in [
            0.1,
            1.0 / 3.0,
            2.0 / 3.0,
            1e-7,
            6.02214076e23,
            1e308,
            4.9e-324,
            9.999999999999999e22,
        ] {
            let (d, p) = digits(f);
            let text = format!("0.{d}e{p}");
            assert_eq!(parse(&text), Some(f), "{f:e}: {text}");
        }
    }

    #[test]
    fn agrees_with_the_standard_parser() {
        let cases = [
            "0",
            "-0",
            "0.0",
            "1",
            "1.5",
            "0.1",
            "0.2",
            "0.3",
            "123456.789",
            "1e22",
            "1e23",
            "9007199254740993",
            "9007199254740992.5",
            "2.2250738585072011e-308",
            "2.2250738585072014e-308",
            "4.9406564584124654e-324",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "5e-324",
            "1e-400",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "1.00000000000000011102230246251565404236316680908203125",
            "1.00000000000000011102230246251565404236316680908203124",
            "1.00000000000000011102230246251565404236316680908203126",
            "7.2057594037927933e16",
            "8.98846567431158e307",
            "1e308",
            "123456789012345678901234567890e-20",
            "0.000000000000000000000000000001e30",
            "4503599627370496.5",
            "4503599627370497.5",
            "2.225073858507201136057409796709131975934819546861e-308",
            "3e-324",
            "2e-324",
            "7e-324",
            "1e-323",
        ];
        for t in cases {
            let want: f64 = t.parse().unwrap();
            let got = parse(t);
            if want.is_infinite() {
                assert_eq!(got, None, "{t}");
            } else {
                assert_eq!(
                    got.map(f64::to_bits),
                    Some(want.to_bits()),
                    "{t}: {got:?} vs {want:e}"
                );
            }
        }
        // A long tail of digits just past a halfway point.
        let long = format!(
            "1.00000000000000011102230246251565404236316680908203125{}1",
            "0".repeat(900)
        );
        assert_eq!(
            parse(&long).map(f64::to_bits),
            Some(long.parse::<f64>().unwrap().to_bits())
        );
        let long = format!(
            "1.00000000000000011102230246251565404236316680908203125{}",
            "0".repeat(900)
        );
        assert_eq!(
            parse(&long).map(f64::to_bits),
            Some(long.parse::<f64>().unwrap().to_bits())
        );
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
            for text in [
                format!("{f:e}"),
                format!("{:.17e}", f),
                format!("{:.25e}", f),
                format!("{:.3e}", f),
            ] {
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
