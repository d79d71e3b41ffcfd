//! o200k_base token counts (feature `tokens`): OpenAI's tokenizer of the
//! GPT-4o, o-series and GPT-5 models, through `tiktoken-rs`, whose
//! vocabulary is compiled in (no file, no network).

/// How many o200k_base tokens `text` is, special-token text (`<|endoftext|>`)
/// counted as the plain text it is: what a model reading the JSON sees.
///
/// The vocabulary is loaded once per process, on first use.
pub(crate) fn count(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len()
}

#[cfg(test)]
mod tests {
    use super::count;

    /// Counts a model provider's own o200k_base tokenizer gives (the
    /// vectors Kandev's estimator is tested against, too).
    #[test]
    fn known_o200k_base_counts() {
        for (text, tokens) in [
            ("", 0),
            ("hello", 1),
            ("hello world", 2),
            ("antidisestablishmentarianism", 6),
            ("お誕生日おめでとう", 8),
        ] {
            assert_eq!(count(text), tokens, "{text:?}");
        }
    }

    #[test]
    fn special_token_text_is_counted_as_text() {
        // As the special token it would be 1; a tool's description may
        // quote it, and a client sends it as text.
        assert!(count("<|endoftext|>") > 1);
    }
}
