//! libFuzzer's driver: one binary for every target of `rehydrate_fuzz::TARGETS`, the target
//! named by `REHYDRATE_FUZZ_TARGET`. With `REHYDRATE_FUZZ_LIST` set it prints each target's
//! name and seeds, tab-separated, one target a line, and exits (`cargo xtask fuzz` reads it).

#![no_main]

use std::sync::OnceLock;

/// The target this process runs.
fn chosen() -> fn(&[u8]) {
    static RUN: OnceLock<fn(&[u8])> = OnceLock::new();
    *RUN.get_or_init(|| {
        let name = std::env::var("REHYDRATE_FUZZ_TARGET")
            .unwrap_or_else(|_| panic!("set REHYDRATE_FUZZ_TARGET to a fuzz target's name"));
        rehydrate_fuzz::target(&name)
            .unwrap_or_else(|| panic!("no fuzz target named {name}"))
            .run
    })
}

libfuzzer_sys::fuzz_target!(
    init: {
        if std::env::var_os("REHYDRATE_FUZZ_LIST").is_some() {
            for t in rehydrate_fuzz::TARGETS {
                println!("{}\t{}", t.name, t.seeds.join("\t"));
            }
            std::process::exit(0);
        }
        chosen();
    },
    |data: &[u8]| chosen()(data)
);
