//! Where an answer's UTF-8 text is cut for the JS engine's decoder (the
//! bindings' `textAt`, `src/wasm/glue.js`). V8 decodes ASCII on a fast path
//! that it leaves for the rest of a text at the first other byte; each long
//! ASCII stretch after that byte, decoded as a piece of its own, stays on
//! it. A pure function of the text, so it is here and tested natively; the
//! measurements behind each figure: BENCH.md, "the answers' decoding".

/// Stretches are found in whole blocks: a cut falls where a block of ASCII
/// bytes meets one holding another byte, so it never splits a character
/// (an ASCII byte is a character of its own).
const BLOCK: usize = 256;

/// A shorter stretch stays inside its neighbours' piece: one more decoder
/// call would cost about what it saves.
const MIN_STRETCH: usize = 4 * BLOCK;

/// A longer text is decoded whole: the engine joins the pieces by copying
/// them, and on texts of hundreds of kilobytes that copy cost more than the
/// pieces saved.
const MAX_TEXT: usize = 64 * 1024;

/// The end of each piece of `bytes`, the last one `bytes.len()`.
pub(crate) fn piece_ends(bytes: &[u8]) -> Vec<u32> {
    let mut ends = Vec::new();
    if bytes.len() <= MAX_TEXT {
        // ASCII blocks before the first other byte are on the fast path
        // already: a stretch counts once a block has left it.
        let mut left_fast_path = false;
        let mut stretch: Option<usize> = None;
        for (i, block) in bytes.chunks(BLOCK).enumerate() {
            let at = i * BLOCK;
            match (block.is_ascii(), stretch) {
                (true, None) if left_fast_path => stretch = Some(at),
                (false, Some(start)) => {
                    cut_around(&mut ends, start, at);
                    stretch = None;
                }
                (false, None) => left_fast_path = true,
                _ => {}
            }
        }
        if let Some(start) = stretch {
            cut_around(&mut ends, start, bytes.len());
        }
    }
    if ends.last() != Some(&(bytes.len() as u32)) {
        ends.push(bytes.len() as u32);
    }
    ends
}

/// Makes the ASCII stretch `start..end` a piece, if it is long enough.
fn cut_around(ends: &mut Vec<u32>, start: usize, end: usize) {
    if end - start >= MIN_STRETCH {
        ends.push(start as u32);
        ends.push(end as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &str) -> Vec<&str> {
        let mut start = 0;
        piece_ends(text.as_bytes())
            .into_iter()
            .map(|end| {
                let piece = &text[start..end as usize];
                start = end as usize;
                piece
            })
            .collect()
    }

    #[test]
    fn a_long_ascii_stretch_after_another_byte_is_a_piece() {
        let stretch = "a".repeat(MIN_STRETCH + BLOCK);
        let text = format!("{stretch}香港{stretch}香港{}", "b".repeat(BLOCK));
        let got = pieces(&text);
        // The first stretch is on the fast path already: the first piece
        // runs to the end of the block holding the first 香港; the whole
        // blocks of the second stretch are the second, the rest the third.
        let lens: Vec<usize> = got.iter().map(|p| p.len()).collect();
        let first = 6 * BLOCK;
        assert_eq!(lens, [first, MIN_STRETCH, text.len() - first - MIN_STRETCH]);
        assert!(got[1].is_ascii() && !got[0].is_ascii() && !got[2].is_ascii());
        assert_eq!(got.concat(), text);
    }

    #[test]
    fn texts_without_a_long_stretch_or_too_long_are_one_piece() {
        let short = format!("香港{}", "a".repeat(MIN_STRETCH - 1));
        let long = format!("香港{}", "a".repeat(MAX_TEXT));
        for text in [
            "",
            "abc",
            "香港",
            &"é".repeat(BLOCK * 8),
            &"a".repeat(MAX_TEXT),
            &short,
            &long,
        ] {
            assert_eq!(pieces(text), vec![text]);
        }
    }

    /// Every cut of texts mixing ASCII and wider characters at every offset
    /// falls on a character boundary (slicing there would panic otherwise),
    /// and the pieces put together are the text.
    #[test]
    fn cuts_fall_between_characters() {
        for wide in ["é", "香", "😀"] {
            for offset in 0..BLOCK + 4 {
                let text = format!(
                    "{}{wide}{}{wide}{}",
                    "a".repeat(offset),
                    "b".repeat(MIN_STRETCH + BLOCK + offset % 7),
                    "c".repeat(offset)
                );
                let got = pieces(&text);
                assert_eq!(got.len(), 3, "offset {offset}");
                assert_eq!(got.concat(), text);
            }
        }
    }
}
