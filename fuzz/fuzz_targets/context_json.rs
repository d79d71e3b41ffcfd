//! Fuzz target `context_json`: see `check_context_json` in `fuzz/src/lib.rs`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mcp_profiles_fuzz::check_context_json(data));
