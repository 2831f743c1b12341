//! Applying a fix recipe: a container from the variant's image, facts probed, the recipe's checks,
//! verify first (already applied?), the injected file and steps with their output streamed, verify
//! again, and the container committed as an image. The container is always removed.

use crate::docker::{DockerError, Engine, tar_of};
use crate::fixes::{Facts, FixOffer, NotApplicable, Recipe, RecipeBook, Vars, applicable};
use crate::ids::{ImageRef, Short};
use crate::runs::{ContainerSpec, GpuRequest, LABEL_WORKSPACE};
use crate::triage::FixOutcome;
use std::collections::HashMap;
use std::path::Path;

/// Why a fix could not be probed or applied (a failing verify is an outcome, not an error).
#[derive(Debug, thiserror::Error)]
pub enum FixError {
    #[error(transparent)]
    Docker(#[from] DockerError),
    #[error("{recipe} does not apply here: {why}")]
    NotApplicable { recipe: String, why: String },
    #[error("this fix copies a file from the vLLM checkout: set [runs] vllm_repo in the config")]
    NoCheckout,
    #[error(transparent)]
    Git(#[from] crate::jobs::git::GitError),
    #[error("cannot pack {name} for the container: {why}")]
    Pack { name: String, why: String },
    #[error("cancelled; its container is removed and nothing recorded")]
    Cancelled,
}

pub use crate::fixes::{LOCAL_REPO, Owner, commit_target};

/// One fix to apply.
#[derive(Debug, Clone)]
pub struct FixJob {
    pub short: Short,
    pub variant: crate::dataset::Variant,
    pub image: ImageRef,
    /// The commit whose files an injection takes (the PR commit for human, the parent otherwise).
    pub source_commit: String,
    pub full: String,
    pub parent: String,
    pub evidence: Option<String>,
    /// Where the fixed container is committed: `repo:tag`.
    pub commit_to: (String, String),
    pub workspace: String,
    /// Free disk a commit must leave under the Docker data root.
    pub reserve_bytes: u64,
}

impl FixJob {
    /// The job for a commit's variant in `image`. `fixed_repo`: commit the result as the variant's fixed
    /// image (`{repo}:{full}-{mark}`, or `baseline-{parent12}-{mark}` for baseline/agent, the mark the
    /// workspace's); `None`: a local tag for a re-run.
    pub fn new(
        commit: &crate::dataset::Commit,
        variant: crate::dataset::Variant,
        image: ImageRef,
        evidence: Option<String>,
        fixed_repo: Option<&str>,
        workspace: &Path,
    ) -> FixJob {
        use crate::dataset::Variant;
        let parent = commit.parent.clone().unwrap_or_default();
        FixJob {
            commit_to: commit_target(commit, variant, fixed_repo, &Owner::of(workspace)),
            short: commit.short.clone(),
            variant,
            image,
            source_commit: if variant == Variant::Human { commit.full.clone() } else { parent.clone() },
            full: commit.full.clone(),
            parent,
            evidence,
            workspace: workspace.display().to_string(),
            reserve_bytes: crate::runs::RunConfig::default().reserve_bytes(),
        }
    }

    /// The free disk a commit must leave (`[runs] disk_reserve_gb`).
    pub fn reserving(mut self, bytes: u64) -> FixJob {
        self.reserve_bytes = bytes;
        self
    }

    /// The fixed image goes to the fixed-image repository (not a local tag for one re-run).
    pub fn commits_image(&self) -> bool {
        self.commit_to.0 != LOCAL_REPO
    }

    /// Where a fix's output is kept: `<workspace>/fixes/<short>-<variant>-<recipe>-<time>.log`.
    pub fn log_path(&self, recipe: &str) -> std::path::PathBuf {
        let name =
            format!("{}-{}-{recipe}-{}.log", self.short, self.variant.name(), crate::session::now_compact());
        Path::new(&self.workspace).join("fixes").join(name)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct FixReport {
    pub outcome: FixOutcome,
    pub image: Option<ImageRef>,
    pub output: String,
}

struct Container<'a> {
    engine: &'a Engine,
    id: String,
}

impl Container<'_> {
    /// Run `argv`, its output to `sink` as it comes; its exit code and whole output.
    async fn run(&self, argv: Vec<String>, mut sink: impl FnMut(&[u8])) -> Result<(i64, String), FixError> {
        let mut out = Vec::new();
        let done = self
            .engine
            .exec(&self.id, argv, Vec::new(), |_, b| {
                out.extend_from_slice(b);
                sink(b);
            })
            .await?;
        Ok((done.exit_code.unwrap_or(-1), String::from_utf8_lossy(&out).into_owned()))
    }

    async fn exists(&self, path: &str) -> bool {
        matches!(self.run(vec!["test".into(), "-e".into(), path.into()], |_| {}).await, Ok((0, _)))
    }
}

async fn start<'a>(engine: &'a Engine, job: &FixJob, name: &str) -> Result<Container<'a>, FixError> {
    let spec = ContainerSpec {
        name: name.to_string(),
        image: job.image.clone(),
        cmd: vec!["sleep".into(), "2000000".into()],
        env: Vec::new(),
        labels: HashMap::from([
            (LABEL_WORKSPACE.to_string(), job.workspace.clone()),
            (crate::runs::LABEL_PID.to_string(), std::process::id().to_string()),
        ]),
        publish: None,
        gpus: GpuRequest::None,
        shm_bytes: 1 << 30,
        binds: Vec::new(),
        memory_bytes: None,
    };
    let id = engine.start(&spec).await?;
    Ok(Container { engine, id })
}

async fn facts(c: &Container<'_>, job: &FixJob) -> Facts {
    let found = c.run(crate::jobs::probe::argv(), |_| {}).await;
    let (vllm_dir, vllm_version) = match found {
        Ok((0, out)) => crate::jobs::probe::parse(&out),
        _ => (None, None),
    };
    let vllm_dir = vllm_dir.unwrap_or_else(|| "/opt/vllm_baseline/vllm".into());
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

/// Whether the recipe applies in this container: `Ok(Err(why))` when it does not.
async fn check(
    c: &Container<'_>,
    recipe: &Recipe,
    facts: &Facts,
) -> Result<Result<(), NotApplicable>, FixError> {
    let mut paths = HashMap::new();
    for p in recipe.check.file_exists.iter().chain(&recipe.check.file_absent) {
        let path = facts.vars.render(p);
        paths.insert(path.clone(), c.exists(&path).await);
    }
    Ok(applicable(recipe, facts, |p| paths.get(p).copied().unwrap_or(false)))
}

/// Probe a container from the image and say which recipes apply; suggestions first.
pub async fn offers(
    engine: &Engine,
    job: &FixJob,
    book: &RecipeBook,
    categories: &[String],
) -> Result<Vec<FixOffer>, FixError> {
    let c = start(engine, job, &format!("perftriage-probe-{}-{}", job.short, std::process::id())).await?;
    let offers = offers_in(&c, job, book, categories).await;
    let _ = engine.remove(&c.id).await;
    offers
}

async fn offers_in(
    c: &Container<'_>,
    job: &FixJob,
    book: &RecipeBook,
    categories: &[String],
) -> Result<Vec<FixOffer>, FixError> {
    let base = facts(c, job).await;
    let mut out = Vec::new();
    for recipe in &book.recipes {
        let facts = with_args(recipe, base.clone(), job.evidence.as_deref());
        let why_not = check(c, recipe, &facts).await?.err().map(|why| why.to_string());
        let steps = preview(recipe, &facts, &job.source_commit);
        let suggested = recipe.answers.iter().any(|a| categories.contains(a));
        out.push(FixOffer { id: recipe.id.clone(), title: recipe.title.clone(), suggested, why_not, steps });
    }
    out.sort_by_key(|o| (!o.suggested, o.why_not.is_some()));
    Ok(out)
}

/// Each exact step, as it will run; an injected file comes from `source_commit` (the PR commit
/// for a human image, the parent for baseline and agent), the commit `apply` reads it at.
pub fn preview(recipe: &Recipe, facts: &Facts, source_commit: &str) -> Vec<String> {
    let mut steps = Vec::new();
    if let Some(inject) = &recipe.inject {
        steps.push(format!(
            "copy {} from the vLLM checkout at {source_commit} into {}",
            inject.from,
            facts.vars.render(&inject.to)
        ));
    }
    // Quoted as a shell reads them: pasted into one, each step does what it will do here.
    steps.extend(recipe.steps.iter().map(|s| shell_words(&facts.vars.argv(s))));
    steps.push(format!("verify: {}", shell_words(&facts.vars.argv(&recipe.verify))));
    steps
}

/// Apply `recipe`; the output of every step goes to `sink`.
pub async fn apply(
    engine: &Engine,
    job: &FixJob,
    (recipe, vllm_repo): (&Recipe, Option<&Path>),
    mut sink: impl FnMut(&[u8]),
    mut cancel: tokio::sync::watch::Receiver<bool>,
) -> Result<FixReport, FixError> {
    let c = start(
        engine,
        job,
        &format!("perftriage-fix-{}-{}-{}", job.short, job.variant.name(), std::process::id()),
    )
    .await?;
    log::debug!("fix of {} {}: container {} started; probing it", job.short, job.variant.name(), c.id);
    // A cancel drops the steps where they are: a commit not started is never made (one the daemon
    // is already making may still leave its tag, which nothing records and the next fix replaces).
    let result = tokio::select! {
        biased;
        Ok(_) = cancel.wait_for(|c| *c) => Err(FixError::Cancelled),
        result = apply_in(&c, job, recipe, vllm_repo, &mut sink) => result,
    };
    let _ = engine.remove(&c.id).await;
    result
}

/// What a fix printed, as it goes to the sink (each step's output as it comes) and as it is kept
/// for the report.
struct Transcript<'s, F: FnMut(&[u8])> {
    output: Vec<u8>,
    sink: &'s mut F,
}

impl<F: FnMut(&[u8])> Transcript<'_, F> {
    fn say(&mut self, text: &str) {
        self.output.extend_from_slice(text.as_bytes());
        (self.sink)(text.as_bytes());
    }

    /// Run a command in the container, echoing it as a shell would read it, and its output as it
    /// comes; its exit code.
    async fn run(&mut self, c: &Container<'_>, argv: Vec<String>) -> Result<i64, FixError> {
        self.say(&format!("$ {}\n", shell_words(&argv)));
        let (output, sink) = (&mut self.output, &mut *self.sink);
        let (code, _) = c
            .run(argv, |chunk| {
                output.extend_from_slice(chunk);
                sink(chunk);
            })
            .await?;
        Ok(code)
    }

    fn report(self, outcome: FixOutcome, image: Option<ImageRef>) -> FixReport {
        FixReport { outcome, image, output: String::from_utf8_lossy(&self.output).into_owned() }
    }
}

async fn apply_in(
    c: &Container<'_>,
    job: &FixJob,
    recipe: &Recipe,
    vllm_repo: Option<&Path>,
    sink: &mut impl FnMut(&[u8]),
) -> Result<FixReport, FixError> {
    let facts = with_args(recipe, facts(c, job).await, job.evidence.as_deref());
    check(c, recipe, &facts)
        .await?
        .map_err(|why| FixError::NotApplicable { recipe: recipe.id.clone(), why: why.to_string() })?;
    log::debug!(
        "fix {} of {} {}: probed, it applies; verifying first",
        recipe.id,
        job.short,
        job.variant.name()
    );
    let verify = facts.vars.argv(&recipe.verify);
    let mut t = Transcript { output: Vec::new(), sink };
    if t.run(c, verify.clone()).await? == 0 {
        t.say(&format!("{}: already applied (verify passes); nothing changed\n", recipe.id));
        return Ok(t.report(FixOutcome::AlreadyApplied, Some(job.image.clone())));
    }
    if let Some(inject) = &recipe.inject {
        let to = facts.vars.render(&inject.to);
        let copied = inject_file(c, job, &inject.from, &to, vllm_repo).await?;
        t.say(&copied);
    }
    for step in &recipe.steps {
        let code = t.run(c, facts.vars.argv(step)).await?;
        if code != 0 {
            t.say(&format!("step failed (exit {code})\n"));
            return Ok(t.report(FixOutcome::Failed, None));
        }
    }
    let code = t.run(c, verify).await?;
    if code != 0 {
        t.say(&format!("{}: verify FAILED (exit {code})\n", recipe.id));
        return Ok(t.report(FixOutcome::Failed, None));
    }
    t.say(&format!("{}: verified\n", recipe.id));
    let image = commit(c, job, recipe).await?;
    t.say(&format!("committed as {image}\n"));
    Ok(t.report(FixOutcome::Verified, Some(image.into())))
}

/// Copy `from` at the job's source commit out of the vLLM checkout into `to` in the container.
async fn inject_file(
    c: &Container<'_>,
    job: &FixJob,
    from: &str,
    to: &str,
    repo: Option<&Path>,
) -> Result<String, FixError> {
    let body = git_show(repo, &job.source_commit, from).await?;
    let name = from.rsplit('/').next().unwrap_or(from);
    let tar = tar_of(&[(name, &body, 0o644)])
        .map_err(|e| FixError::Pack { name: name.to_string(), why: e.to_string() })?;
    c.engine.upload(&c.id, to, tar).await?;
    Ok(format!("copied {from} ({} bytes) at {} into {to}\n", body.len(), job.source_commit))
}

async fn commit(c: &Container<'_>, job: &FixJob, recipe: &Recipe) -> Result<String, FixError> {
    let (repo, tag) = &job.commit_to;
    let needed = c.engine.diff_bytes(&c.id).await + job.reserve_bytes;
    c.engine.ensure_room(&format!("committing {repo}:{tag}"), needed).await?;
    let comment = format!("perftriage fix {} on {} {}", recipe.id, job.short, job.variant.name());
    let owner = Owner::of(Path::new(&job.workspace));
    let labels = HashMap::from([(crate::fixes::LABEL_FIXED_IN.to_string(), owner.label())]);
    c.engine.commit_labelled(&c.id, repo, tag, &comment, labels).await.map_err(FixError::from)
}

async fn git_show(repo: Option<&Path>, commit: &str, path: &str) -> Result<Vec<u8>, FixError> {
    let repo = repo.ok_or(FixError::NoCheckout)?;
    Ok(crate::jobs::git::show(repo, commit, path).await?)
}

/// A command as a shell would read it: each word quoted where it needs it (copyable as is).
fn shell_words(argv: &[String]) -> String {
    let words: Vec<String> = argv.iter().map(|w| shell_escape::unix::escape(w.into()).into_owned()).collect();
    words.join(" ")
}
