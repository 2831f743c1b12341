//! What a real vLLM engine prints (issue 26, in part): the CPU build's `vllm serve` start, its
//! `vllm bench serve` result block and its refusal of a KV cache too small for one sequence,
//! captured on this machine (fixtures/vllm_cpu/README.md), read by the same parser, workload
//! reader and classifier as every other log.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use perftriage::classify::Classifier;
use perftriage::metrics::parse;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("fixtures/vllm_cpu/{name}")).unwrap()
}

#[test]
fn vllm_bench_serves_result_block_gives_every_number_it_printed() {
    let parsed = parse::parse(&fixture("bench_serve_ok.txt")).unwrap();
    let want = [
        ("request_throughput", 210.61),
        ("output_throughput", 3369.80),
        ("total_throughput", 10225.25),
        ("ttft_mean", 43.63),
        ("ttft_median", 47.40),
        ("ttft_p99", 50.09),
        ("tpot_mean", 3.08),
        ("tpot_p99", 3.72),
        ("itl_mean", 3.09),
        ("itl_p99", 11.82),
    ];
    for (metric, value) in want {
        assert_eq!(parsed.metrics.get(metric), Some(&value), "{metric}: {:?}", parsed.metrics);
    }
    // Its new lines (peak throughput, peak concurrency) are no metric of the vocabulary.
    assert!(!parsed.metrics.contains_key("throughput"), "{:?}", parsed.metrics);
}

#[test]
fn vllm_bench_serves_block_names_its_workload() {
    let w = perftriage::dataset::Workload::from_output(&fixture("bench_serve_ok.txt"));
    assert_eq!(w.get("requests"), Some("20"));
    assert_eq!(w.get("input_tokens"), Some("651"));
}

#[test]
fn a_kv_cache_too_small_for_one_sequence_is_named_in_vllms_own_words() {
    let c = Classifier::embedded().unwrap();
    let v = c.classify(&fixture("serve_kv_cache_too_small.log")).unwrap();
    assert_eq!(v.category, "kv_cache_too_small");
    assert!(v.evidence.contains(
        "(3.81 GiB KV cache is needed, which is larger than the available KV cache memory (1.0 GiB)"
    ));
    assert!(v.tags.contains(&"engine_failed".to_string()), "{:?}", v.tags);
}

#[test]
fn a_healthy_engine_start_and_benchmark_classify_as_nothing() {
    let c = Classifier::embedded().unwrap();
    assert_eq!(c.classify(&fixture("serve_ok.log")).map(|v| v.category), None);
    assert_eq!(c.classify(&fixture("bench_serve_ok.txt")).map(|v| v.category), None);
}

#[test]
fn a_dev_shm_too_small_for_the_engine_is_named_and_says_how_to_fix_it() {
    let c = Classifier::embedded().unwrap();
    let v = c.classify(&fixture("serve_shm_too_small.log")).unwrap();
    assert_eq!(v.category, "shm_too_small");
    assert!(v.evidence.contains("160 MiB required, 64 MiB free"), "{}", v.evidence);
    assert!(v.explain.contains("shm_gb"), "{}", v.explain);
}
