//! Applying a fix recipe: a container from the variant's image, facts probed, the recipe's checks,
//! verify first (already applied?), the injected file and steps with their output streamed, verify
//! again, and the container committed as an image. The container is always removed.

use crate::docker::{DockerError, Engine, tar_of};
use crate::fixes::{Facts, Recipe, RecipeBook, Vars, applicable};
use crate::runs::{ContainerSpec, GpuRequest, LABEL_WORKSPACE};
use crate::triage::FixOutcome;
use std::collections::HashMap;
use std::path::Path;

/// One fix to apply.
#[derive(Debug, Clone)]
pub struct FixJob {
    pub short: String,
    pub variant: crate::dataset::Variant,
    pub image: String,
    /// The commit whose files an injection takes (the PR commit for human, the parent otherwise).
    pub source_commit: String,
    pub full: String,
    pub parent: String,
    pub evidence: Option<String>,
    /// Where the fixed container is committed: `repo:tag`.
    pub commit_to: (String, String),
    pub workspace: String,
}

impl FixJob {
    /// The job for a commit's variant in `image`. `fixed_repo`: commit the result as the variant's fixed
    /// image (`{repo}:{full}`, or `baseline-{parent12}` for baseline/agent); `None`: a local tag for a re-run.
    pub fn new(
        commit: &crate::dataset::Commit,
        variant: crate::dataset::Variant,
        image: String,
        evidence: Option<String>,
        fixed_repo: Option<&str>,
        workspace: &Path,
    ) -> FixJob {
        use crate::dataset::Variant;
        let parent = commit.parent.clone().unwrap_or_default();
        let commit_to = match (fixed_repo, variant) {
            (Some(repo), Variant::Human) => (repo.to_string(), commit.full.clone()),
            (Some(repo), _) => {
                (repo.to_string(), format!("baseline-{}", parent.get(..12).unwrap_or(&parent)))
            }
            (None, _) => ("perftriage-fixed-local".into(), format!("{}-{}", commit.short, variant.name())),
        };
        FixJob {
            short: commit.short.clone(),
            variant,
            image,
            source_commit: if variant == Variant::Human { commit.full.clone() } else { parent.clone() },
            full: commit.full.clone(),
            parent,
            evidence,
            commit_to,
            workspace: workspace.display().to_string(),
        }
    }

    /// Keep a fix's output in `<workspace>/fixes/`; the path, when it could be written.
    pub fn save_output(&self, recipe: &str, output: &str) -> Option<String> {
        let dir = Path::new(&self.workspace).join("fixes");
        let name = format!("{}-{}-{recipe}-{}.log", self.short, self.variant.name(), super::now_compact());
        let path = dir.join(name);
        std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&path, output)).ok()?;
        Some(path.display().to_string())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct FixReport {
    pub outcome: FixOutcome,
    pub image: Option<String>,
    pub output: String,
}

/// A recipe as offered for a container: suggested for the failure or not, and why not if it does not apply.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    pub id: String,
    pub title: String,
    pub suggested: bool,
    pub why_not: Option<String>,
    pub steps: Vec<String>,
}

struct Container<'a> {
    engine: &'a Engine,
    id: String,
}

impl Container<'_> {
    async fn run(&self, argv: Vec<String>, mut sink: impl FnMut(&str)) -> Result<(i64, String), String> {
        let mut out = Vec::new();
        let done = self
            .engine
            .exec(&self.id, argv, Vec::new(), |_, b| {
                out.extend_from_slice(b);
                sink(&String::from_utf8_lossy(b));
            })
            .await
            .map_err(|e| e.to_string())?;
        Ok((done.exit_code.unwrap_or(-1), String::from_utf8_lossy(&out).into_owned()))
    }

    async fn exists(&self, path: &str) -> bool {
        matches!(self.run(vec!["test".into(), "-e".into(), path.into()], |_| {}).await, Ok((0, _)))
    }
}

async fn start<'a>(engine: &'a Engine, job: &FixJob, name: &str) -> Result<Container<'a>, String> {
    let spec = ContainerSpec {
        name: name.to_string(),
        image: job.image.clone(),
        cmd: vec!["sleep".into(), "2000000".into()],
        env: Vec::new(),
        labels: HashMap::from([(LABEL_WORKSPACE.to_string(), job.workspace.clone())]),
        publish: None,
        gpus: GpuRequest::None,
        shm_bytes: 1 << 30,
        binds: Vec::new(),
    };
    let id = engine.start(&spec).await.map_err(|e: DockerError| e.to_string())?;
    Ok(Container { engine, id })
}

async fn facts(c: &Container<'_>, job: &FixJob) -> Facts {
    let probe = |code: &str| vec!["python3".to_string(), "-c".to_string(), code.to_string()];
    let dir = c.run(probe("import vllm, os; print(os.path.dirname(vllm.__file__))"), |_| {}).await;
    let vllm_dir = dir
        .ok()
        .and_then(|(code, out)| (code == 0).then(|| out.lines().last().unwrap_or("").trim().to_string()));
    let vllm_dir =
        vllm_dir.filter(|d| d.starts_with('/')).unwrap_or_else(|| "/opt/vllm_baseline/vllm".into());
    let version = c.run(probe("import vllm; print(vllm.__version__)"), |_| {}).await.ok();
    let vllm_version = version
        .and_then(|(code, out)| (code == 0).then(|| out.lines().last().unwrap_or("").trim().to_string()));
    let has_mllama = c.exists(&format!("{vllm_dir}/model_executor/models/mllama.py")).await;
    let site_packages = vllm_dir.rsplit_once('/').map_or(vllm_dir.clone(), |(p, _)| p.to_string());
    Facts {
        vars: Vars {
            vllm_dir,
            python: "python3".into(),
            site_packages,
            commit: job.full.clone(),
            parent: job.parent.clone(),
            args: String::new(),
        },
        vllm_version,
        has_mllama,
    }
}

/// `{args}` from the evidence line, for recipes that take them (e.g. the tokenizers range).
fn with_args(recipe: &Recipe, mut facts: Facts, evidence: Option<&str>) -> Facts {
    if let (Some(pattern), Some(evidence)) = (&recipe.args_from_evidence, evidence)
        && let Ok(re) = regex::Regex::new(pattern)
        && let Some(m) = re.find(evidence)
    {
        facts.vars.args = m.as_str().to_string();
    }
    facts
}

async fn check(c: &Container<'_>, recipe: &Recipe, facts: &Facts) -> Result<(), String> {
    let mut paths = HashMap::new();
    for p in recipe.check.file_exists.iter().chain(&recipe.check.file_absent) {
        let path = facts.vars.render(p);
        paths.insert(path.clone(), c.exists(&path).await);
    }
    applicable(recipe, facts, |p| paths.get(p).copied().unwrap_or(false))
}

/// Probe a container from the image and say which recipes apply; suggestions first.
pub async fn offers(
    engine: &Engine,
    job: &FixJob,
    book: &RecipeBook,
    categories: &[String],
) -> Result<Vec<Offer>, String> {
    let c = start(engine, job, &format!("perftriage-probe-{}-{}", job.short, std::process::id())).await?;
    let base = facts(&c, job).await;
    let mut out = Vec::new();
    for recipe in &book.recipes {
        let facts = with_args(recipe, base.clone(), job.evidence.as_deref());
        let why_not = check(&c, recipe, &facts).await.err();
        let steps = preview(recipe, &facts);
        let suggested = recipe.answers.iter().any(|a| categories.contains(a));
        out.push(Offer { id: recipe.id.clone(), title: recipe.title.clone(), suggested, why_not, steps });
    }
    let _ = engine.remove(&c.id).await;
    out.sort_by_key(|o| (!o.suggested, o.why_not.is_some()));
    Ok(out)
}

/// Each exact step, as it will run.
pub fn preview(recipe: &Recipe, facts: &Facts) -> Vec<String> {
    let mut steps = Vec::new();
    if let Some(inject) = &recipe.inject {
        steps.push(format!(
            "copy {} from the vLLM checkout at {} into {}",
            inject.from,
            facts.vars.commit,
            facts.vars.render(&inject.to)
        ));
    }
    steps.extend(recipe.steps.iter().map(|s| facts.vars.argv(s).join(" ")));
    steps.push(format!("verify: {}", facts.vars.argv(&recipe.verify).join(" ")));
    steps
}

/// Apply `recipe`; the output of every step goes to `sink`.
pub async fn apply(
    engine: &Engine,
    job: &FixJob,
    recipe: &Recipe,
    vllm_repo: Option<&Path>,
    mut sink: impl FnMut(&str),
) -> Result<FixReport, String> {
    let c = start(
        engine,
        job,
        &format!("perftriage-fix-{}-{}-{}", job.short, job.variant.name(), std::process::id()),
    )
    .await?;
    let result = apply_in(&c, job, recipe, vllm_repo, &mut sink).await;
    let _ = engine.remove(&c.id).await;
    result
}

async fn apply_in(
    c: &Container<'_>,
    job: &FixJob,
    recipe: &Recipe,
    vllm_repo: Option<&Path>,
    sink: &mut impl FnMut(&str),
) -> Result<FixReport, String> {
    let facts = with_args(recipe, facts(c, job).await, job.evidence.as_deref());
    check(c, recipe, &facts).await.map_err(|why| format!("{} does not apply here: {why}", recipe.id))?;
    let verify = facts.vars.argv(&recipe.verify);
    let mut output = String::new();
    let mut say = |text: &str, output: &mut String| {
        output.push_str(text);
        sink(text);
    };
    say(&format!("$ {}\n", verify.join(" ")), &mut output);
    let (code, text) = c.run(verify.clone(), |_| {}).await?;
    say(&text, &mut output);
    if code == 0 {
        say(&format!("{}: already applied (verify passes); nothing changed\n", recipe.id), &mut output);
        return Ok(FixReport { outcome: FixOutcome::AlreadyApplied, image: Some(job.image.clone()), output });
    }
    if let Some(inject) = &recipe.inject {
        let body = git_show(vllm_repo, &job.source_commit, &inject.from).await?;
        let name = inject.from.rsplit('/').next().unwrap_or(&inject.from);
        let tar = tar_of(&[(name, &body, 0o644)]).map_err(|e| e.to_string())?;
        let to = facts.vars.render(&inject.to);
        c.engine.upload(&c.id, &to, tar).await.map_err(|e| e.to_string())?;
        say(
            &format!("copied {} ({} bytes) at {} into {to}\n", inject.from, body.len(), job.source_commit),
            &mut output,
        );
    }
    for step in &recipe.steps {
        let argv = facts.vars.argv(step);
        say(&format!("$ {}\n", argv.join(" ")), &mut output);
        let (code, text) = c.run(argv, |_| {}).await?;
        say(&text, &mut output);
        if code != 0 {
            say(&format!("step failed (exit {code})\n"), &mut output);
            return Ok(FixReport { outcome: FixOutcome::Failed, image: None, output });
        }
    }
    say(&format!("$ {}\n", verify.join(" ")), &mut output);
    let (code, text) = c.run(verify, |_| {}).await?;
    say(&text, &mut output);
    if code != 0 {
        say(&format!("{}: verify FAILED (exit {code})\n", recipe.id), &mut output);
        return Ok(FixReport { outcome: FixOutcome::Failed, image: None, output });
    }
    say(&format!("{}: verified\n", recipe.id), &mut output);
    let image = commit(c, job, recipe).await?;
    say(&format!("committed as {image}\n"), &mut output);
    Ok(FixReport { outcome: FixOutcome::Verified, image: Some(image), output })
}

async fn commit(c: &Container<'_>, job: &FixJob, recipe: &Recipe) -> Result<String, String> {
    let (repo, tag) = &job.commit_to;
    c.engine
        .commit(
            &c.id,
            repo,
            tag,
            &format!("perftriage fix {} on {} {}", recipe.id, job.short, job.variant.name()),
        )
        .await
        .map_err(|e| e.to_string())
}

async fn git_show(repo: Option<&Path>, commit: &str, path: &str) -> Result<Vec<u8>, String> {
    let repo =
        repo.ok_or("this fix copies a file from the vLLM checkout: set [runs] vllm_repo in the config")?;
    let out = tokio::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .arg("show")
        .arg(format!("{commit}:{path}"))
        .output()
        .await
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git show {commit}:{path} in {}: {}",
            repo.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out.stdout)
}
