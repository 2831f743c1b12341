//! Builds the real tiers' images ahead of the suite, through the recipes the tests use: `.ci/run`
//! starts it in the background beside the compile, so the slow downloads (the Debian base, the
//! torch stacks, vLLM's CPU build) overlap it. A test that needs an image still being built waits
//! for it on the image's lock; one already built is found by its tag. Run by hand with
//! `cargo run --example prepare_images`. Each image is printed with the time it took.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::needless_pass_by_value)]

#[path = "../common/build_env.rs"]
mod build_env;
#[path = "../common/mock_images.rs"]
mod mock_images;
#[path = "../common/real.rs"]
mod real;
#[path = "../common/scenarios.rs"]
mod scenarios;

use perftriage::docker::Engine;
use std::time::Instant;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// Build one image through `make`, saying what and how long.
fn timed(what: &str, make: impl FnOnce() -> String) {
    let started = Instant::now();
    let tag = make();
    println!("prepare: {what} {tag} ready in {:.0} s", started.elapsed().as_secs_f64());
}

/// vLLM's CPU image: the longest chain (torch's CUDA wheels, vLLM's), first on a thread of its own.
fn vllm_cpu(engine: Engine) {
    let rt = runtime();
    timed("vllm-cpu", || real::vllm_cpu_image(&rt, &engine));
}

/// The failure scenarios, the build tier's image and the mock images, one after another.
fn the_rest(engine: Engine) {
    let rt = runtime();
    for scenario in scenarios::ALL {
        timed(scenario.name, || real::image(&rt, &engine, scenario).expect("the Debian base"));
    }
    timed("build env", || build_env::image(&rt, &engine).expect("the Debian base"));
    timed("mock images", || {
        mock_images::ensure_images(&rt, &engine);
        "perftriage-test/vllm:*".into()
    });
}

fn main() {
    let rt = runtime();
    let engine = rt.block_on(Engine::connect()).expect("a Docker engine");
    timed("debian base", || real::base(&rt, &engine).expect("mmdebstrap"));
    let chains = [std::thread::spawn({
        let engine = engine.clone();
        move || vllm_cpu(engine)
    })];
    the_rest(engine);
    for chain in chains {
        chain.join().expect("the vllm-cpu chain");
    }
}
