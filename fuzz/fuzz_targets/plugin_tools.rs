//! Fuzz target `plugin_tools`: see `check_plugin_tools` in `fuzz/src/plugin_tools.rs`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mcp_profiles_fuzz::check_plugin_tools(data));
