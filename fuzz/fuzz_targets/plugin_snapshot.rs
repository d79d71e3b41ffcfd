//! Fuzz target `plugin_snapshot`: see `fuzz/src/plugin_snapshot.rs`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mcp_profiles_fuzz::check_plugin_snapshot(data));
