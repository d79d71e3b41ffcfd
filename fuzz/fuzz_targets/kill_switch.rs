//! Fuzz target `kill_switch`: see `check_kill_switch` in `fuzz/src/kill_switch.rs`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mcp_profiles_fuzz::check_kill_switch(data));
