//! Readiness: `GET /health` answers 200 (vLLM's API server answers it once its engine is up;
//! before, the port is closed or it answers 503). Asked from this machine through the published
//! port when the daemon is here; inside the container when it is not (a remote daemon publishes
//! on its own 127.0.0.1), where the benchmark reaches the server too.

use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

pub async fn health_ok(port: u16) -> bool {
    let attempt = async {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).await.ok()?;
        stream
            .write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            .await
            .ok()?;
        let mut head = [0u8; 16];
        let n = stream.read(&mut head).await.ok()?;
        Some(head[..n].starts_with(b"HTTP/1.1 200") || head[..n].starts_with(b"HTTP/1.0 200"))
    };
    tokio::time::timeout(Duration::from_secs(2), attempt).await.ok().flatten().unwrap_or(false)
}

/// The same question asked inside the container: with curl where the image has it (vLLM's
/// images do), else with Python's standard library (every vLLM image has Python); exit 0 on 200.
pub fn inside_argv() -> Vec<String> {
    const URL: &str = "http://127.0.0.1:8000/health";
    let script = format!(
        "if command -v curl >/dev/null 2>&1; then exec curl -fsS -m 2 -o /dev/null {URL}; fi; \
         exec python3 -c 'import urllib.request as u; u.urlopen(\"{URL}\", timeout=2)'"
    );
    ["sh", "-c", &script].map(String::from).to_vec()
}
