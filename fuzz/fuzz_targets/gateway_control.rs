//! Fuzz target `gateway_control`: see `check_gateway_control` in
//! `fuzz/src/gateway.rs`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mcp_profiles_fuzz::check_gateway_control(data));
