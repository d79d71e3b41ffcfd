//! Fuzz target `legacy`: see `check_legacy` in `fuzz/src/lib.rs`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mcp_profiles_fuzz::check_legacy(data));
