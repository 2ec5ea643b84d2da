//! `cargo xtask limits`: the resource limits of docs/RELIABILITY.md at full size, on the
//! release CLI: a 1 GiB tool output, 10 million tiny messages, JSON nested 100,000 deep, a
//! 100 MiB last line without a line break, and a regex at each size limit over 64 MiB of hidden
//! output. Each runs under GNU time; the table gives its exit code, time, peak RSS against the
//! input's size, and the first line of stderr. A case fails when it aborts (a signal) or fails
//! with anything but one line and exit 2. The CI-sized versions are
//! `crates/rehydrate-cli/tests/integration/limits.rs`.

use std::fmt::Write as _;
use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::Result;
use crate::bench::{build_cli, max_rss_kbytes};

/// One measured run.
struct Row {
    case: String,
    input_bytes: u64,
    exit: Option<i32>,
    seconds: f64,
    peak_bytes: u64,
    first_line: String,
}

/// Runs `bin args` under `/usr/bin/time -v`.
fn measure(bin: &Path, args: &[&str], case: &str, input_bytes: u64) -> Result<Row> {
    let started = Instant::now();
    let out = Command::new("/usr/bin/time")
        .arg("-v")
        .arg(bin)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run /usr/bin/time (install GNU time): {e}"))?;
    let seconds = started.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // GNU time reports after the command's own lines; its first line starts with a tab or
    // "Command".
    let own: Vec<&str> = stderr
        .lines()
        .take_while(|l| !l.starts_with("\tCommand") && !l.starts_with("Command"))
        .collect();
    let exit = stderr.lines().find_map(|l| {
        l.trim()
            .strip_prefix("Exit status: ")
            .and_then(|v| v.parse().ok())
    });
    let signalled = stderr.contains("Command terminated by signal");
    Ok(Row {
        case: case.to_string(),
        input_bytes,
        exit: if signalled { None } else { exit },
        seconds,
        peak_bytes: max_rss_kbytes(&stderr).unwrap_or(0) * 1024,
        first_line: own.first().map_or(String::new(), |l| (*l).to_string()),
    })
    .map(|row| {
        if own.len() > 1 && row.exit != Some(0) {
            Row {
                first_line: format!("{} (+{} lines)", row.first_line, own.len() - 1),
                ..row
            }
        } else {
            row
        }
    })
}

/// Writes `path` through `fill`; its size.
fn write(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<fs::File>) -> std::io::Result<()>,
) -> Result<u64> {
    let file =
        fs::File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    fill(&mut w)
        .and_then(|()| w.flush())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(fs::metadata(path)?.len())
}

/// An OpenAI session whose one tool result is `mib` MiB of build output.
fn one_large_output(path: &Path, mib: usize) -> Result<u64> {
    write(path, |w| {
        w.write_all(br#"[{"role":"user","content":"build it"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"make\"}"}}]},{"role":"tool","tool_call_id":"c1","content":""#)?;
        let line = b"compiling crate-1 v0.1.0 (/work/crate-1)\\n";
        for _ in 0..(mib << 20) / line.len() {
            w.write_all(line)?;
        }
        w.write_all(br#""},{"role":"assistant","content":"done"}]"#)
    })
}

/// An OpenAI session of `n` one-character messages.
fn tiny_messages(path: &Path, n: usize) -> Result<u64> {
    write(path, |w| {
        w.write_all(b"[")?;
        for i in 0..n {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            if i > 0 {
                w.write_all(b",")?;
            }
            write!(w, r#"{{"role":"{role}","content":"a"}}"#)?;
        }
        w.write_all(b"]")
    })
}

/// An OpenAI session whose first message's content is arrays nested `depth` deep.
fn deep(path: &Path, depth: usize) -> Result<u64> {
    write(path, |w| {
        w.write_all(br#"[{"role":"user","content":"#)?;
        w.write_all(&vec![b'['; depth])?;
        w.write_all(&vec![b']'; depth])?;
        w.write_all(b"}]")
    })
}

/// A Codex rollout whose last line, with no line break after it, is a tool output of `mib`
/// MiB.
fn long_last_line(path: &Path, mib: usize) -> Result<u64> {
    write(path, |w| {
        w.write_all(br#"{"timestamp":"2026-05-11T08:27:00.000Z","type":"session_meta","payload":{"id":"s1","timestamp":"2026-05-11T08:26:55.042Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.1.0"}}"#)?;
        w.write_all(b"\n")?;
        w.write_all(br#"{"timestamp":"2026-05-11T08:27:01.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"make\"]}","call_id":"c1"}}"#)?;
        w.write_all(b"\n")?;
        w.write_all(br#"{"timestamp":"2026-05-11T08:27:02.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":""#)?;
        let line = b"test result: ok. 12 passed; 0 failed\\n";
        for _ in 0..(mib << 20) / line.len() {
            w.write_all(line)?;
        }
        w.write_all(br#""}}"#)
    })
}

/// `cargo xtask limits`.
pub(crate) fn run(root: &Path) -> Result<()> {
    build_cli(root)?;
    let bin = root.join("target/release/rehydrate");
    let dir: PathBuf = root.join("target/limits");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir)?;
    let s = |p: &Path| p.display().to_string();
    let mut rows = Vec::new();
    let mut case = |name: &str,
                    file: &str,
                    make: &dyn Fn(&Path) -> Result<u64>,
                    extra: &[&str]|
     -> Result<()> {
        let input = dir.join(file);
        println!("==> {name}: writing {}", input.display());
        let bytes = make(&input)?;
        let out = dir.join(format!("{file}.rehydrate"));
        let mut args = vec!["reduce", "--no-tokens"];
        args.extend_from_slice(extra);
        let (i, o) = (s(&input), s(&out));
        args.extend([i.as_str(), "--out", o.as_str()]);
        println!("==> {name}: rehydrate {}", args.join(" "));
        rows.push(measure(&bin, &args, &format!("reduce: {name}"), bytes)?);
        if out.is_dir() {
            rows.push(measure(
                &bin,
                &["verify", &o],
                &format!("verify: {name}"),
                bytes,
            )?);
        }
        fs::remove_file(&input)?;
        Ok(())
    };
    case(
        "a 1 GiB tool output",
        "one-output.json",
        &|p| one_large_output(p, 1024),
        &[],
    )?;
    case(
        "10 million tiny messages",
        "tiny.json",
        &|p| tiny_messages(p, 10_000_000),
        &[],
    )?;
    case(
        "JSON nested 100,000 deep",
        "deep.json",
        &|p| deep(p, 100_000),
        &[],
    )?;
    case(
        "a 100 MiB last line without a line break",
        "long-line.jsonl",
        &|p| long_last_line(p, 100),
        &[],
    )?;
    // Searches over 64 MiB of hidden output, with a pattern at each limit.
    let input = dir.join("search.json");
    one_large_output(&input, 64)?;
    let out = dir.join("search.json.rehydrate");
    let (i, o) = (s(&input), s(&out));
    measure(
        &bin,
        &["reduce", "--no-tokens", &i, "--out", &o],
        "setup",
        0,
    )?;
    let hidden = fs::metadata(&input)?.len();
    let nested = |n: usize| format!("{}a{}", "(".repeat(n), ")".repeat(n));
    let queries: Vec<(String, Vec<&str>, String)> = vec![
        (
            "a".repeat(4096),
            vec![],
            "a literal query of 4096 bytes (the limit)".to_string(),
        ),
        (
            "a".repeat(4097),
            vec![],
            "a query of 4097 bytes".to_string(),
        ),
        (
            nested(64),
            vec!["--regex"],
            "groups nested 64 deep (the limit)".to_string(),
        ),
        (
            nested(65),
            vec!["--regex"],
            "groups nested 65 deep".to_string(),
        ),
        (
            "(?:a{1000}){1000}".to_string(),
            vec!["--regex"],
            "a regex over the compiled-size limit".to_string(),
        ),
        (
            "[a-z]{40}[0-9]{40}".to_string(),
            vec!["--regex"],
            "a regex near the compiled-size limit".to_string(),
        ),
        (
            "(.*)*x".to_string(),
            vec!["--regex"],
            "a pattern that backtracks in other engines".to_string(),
        ),
    ];
    for (query, flags, name) in &queries {
        let mut args = vec!["search", o.as_str(), query.as_str()];
        args.extend(flags.iter().copied());
        rows.push(measure(
            &bin,
            &args,
            &format!("search 64 MiB hidden: {name}"),
            hidden,
        )?);
    }
    let mut table = String::from(
        "| case | input | exit | time | peak RSS | RSS / input | stderr |\n|---|---|---|---|---|---|---|\n",
    );
    let mut failures = Vec::new();
    for r in &rows {
        let exit = r.exit.map_or("signal".to_string(), |c| c.to_string());
        let ratio = if r.input_bytes > 0 {
            format!("{:.2}x", r.peak_bytes as f64 / r.input_bytes as f64)
        } else {
            "-".to_string()
        };
        let _ = writeln!(
            table,
            "| {} | {:.1} MiB | {exit} | {:.2} s | {:.0} MiB | {ratio} | {} |",
            r.case,
            r.input_bytes as f64 / (1u64 << 20) as f64,
            r.seconds,
            r.peak_bytes as f64 / (1u64 << 20) as f64,
            r.first_line.replace('|', "\\|"),
        );
        let one_line = !r.first_line.contains("(+");
        if !(r.exit == Some(0) || (r.exit == Some(2) && one_line)) {
            failures.push(format!("{}: exit {exit}: {}", r.case, r.first_line));
        }
    }
    println!("\n{table}");
    let _ = fs::remove_dir_all(&dir);
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("limits not kept:\n{}", failures.join("\n")).into())
    }
}
