//! The intervals and p-values agree with scipy: a table of cases computed once with scipy
//! (`fixtures/stats/make_scipy_cases.py`: n = 2 to 40 a side, ties, an outlier, one side constant,
//! both constant: no interval where scipy's is nan),
//! p-values to 1e-9 relative, interval bounds to 1e-6 relative.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;

fn close(ours: f64, theirs: f64, relative: f64) -> bool {
    (ours - theirs).abs() <= relative * theirs.abs().max(1e-300)
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}

#[test]
fn intervals_and_p_values_agree_with_scipy() {
    let table: Value =
        serde_json::from_str(&std::fs::read_to_string("fixtures/stats/scipy_cases.json").unwrap()).unwrap();
    let cases = table["cases"].as_array().unwrap();
    assert!(cases.len() >= 30, "{} cases", cases.len());
    for case in cases {
        let (name, metric) = (case["name"].as_str().unwrap(), case["metric"].as_str().unwrap());
        let (reference, candidate) = (numbers(&case["reference"]), numbers(&case["candidate"]));
        let ours = perftriage::metrics::interval(metric, &reference, &candidate);
        let welch = &case["welch"];
        if welch.is_null() {
            // scipy's interval is nan: ours is none, and says why.
            let why = ours.unwrap_err().to_string();
            assert!(why.starts_with("no interval: both sides constant"), "{name}: {why}");
        } else {
            let ours = ours.unwrap();
            for (field, value) in [("pct", ours.pct), ("low", ours.low), ("high", ours.high)] {
                let theirs = welch[field].as_f64().unwrap();
                assert!(close(value, theirs, 1e-6), "{name}: {field} {value} against scipy's {theirs}");
            }
        }
        let p = perftriage::metrics::rank::mann_whitney_p(&reference, &candidate).unwrap();
        let theirs = case["mann_whitney_p"].as_f64().unwrap();
        assert!(close(p, theirs, 1e-9), "{name} ({}): p {p} against scipy's {theirs}", case["method"]);
    }
}
