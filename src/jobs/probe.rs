//! Where vLLM is in an image, found without importing it: an image whose transformers or numpy
//! is broken cannot `import vllm` (its `__init__` pulls both in), and that is exactly the image a
//! fix or a patch is for.

/// Python that prints vLLM's package directory and its installed version (empty when unknown).
pub const VLLM_WHERE: &str = "import importlib.util as u, importlib.metadata as m\n\
s = u.find_spec('vllm')\n\
print(list(s.submodule_search_locations)[0] if s and s.submodule_search_locations else '')\n\
try:\n    print(m.version('vllm'))\nexcept Exception:\n    print('')";

/// The argv that runs the probe.
pub fn argv() -> Vec<String> {
    vec!["python3".into(), "-c".into(), VLLM_WHERE.into()]
}

/// (vLLM's directory, its version) from the probe's output.
pub fn parse(out: &str) -> (Option<String>, Option<String>) {
    let mut lines = out.lines().map(str::trim).filter(|l| !l.starts_with("WARNING"));
    let dir = lines.next().filter(|d| d.starts_with('/')).map(str::to_string);
    let version = lines.next().filter(|v| !v.is_empty()).map(str::to_string);
    (dir, version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_s_two_lines_are_read_and_pip_warnings_skipped() {
        let out = "/usr/local/lib/python3.12/dist-packages/vllm\n0.9.1\n";
        assert_eq!(parse(out), (Some(out.lines().next().unwrap().into()), Some("0.9.1".into())));
        assert_eq!(parse("\n\n"), (None, None));
        assert_eq!(parse("WARNING: x\n/opt/v/vllm\n\n"), (Some("/opt/v/vllm".into()), None));
    }
}
