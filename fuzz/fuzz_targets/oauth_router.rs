//! Fuzz target `oauth_router`: see `check_oauth_router` in `fuzz/src/oauth_router.rs`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mcp_profiles_fuzz::check_oauth_router(data));
