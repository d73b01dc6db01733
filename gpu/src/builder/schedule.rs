//! The warm, unsharded static pass's schedule: every thread expands while there is anything to expand, then
//! compiles.
//!
//! Why not rayon's own scheduling: on 16 cores the mesh's 436 groups of variants (60 ms of validation and generation
//! on one thread) were expanded only by the few threads that were not compiling, and when the modules without
//! branches ran out the others waited for them. Expanding as a module's compile ends instead (each group's modules
//! submitted as soon as it was expanded) made the threads alternate between expanding and compiling, which slowed
//! shaderc. Here expansion comes first on every thread that looks for work, and a thread that compiles only
//! compiles.

use super::{Failure, Job, Order, Placed, Runner, jobs_of, variant_set};
use crate::flow::Flow;
use shader_info::{ShaderCreateInfo, ValidatedInfo, VariantSet};
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};

/// Something to expand: an info without branches (its stages to generate), an info with branches (its variants
/// to enumerate), or one group of its variants that differ only in render state.
enum Task<'a> {
    Plain(usize, &'a ValidatedInfo),
    Enumerate(usize, &'a ShaderCreateInfo, &'a ValidatedInfo),
    Group(
        usize,
        &'a ShaderCreateInfo,
        &'a ValidatedInfo,
        Arc<VariantSet>,
        Vec<usize>,
    ),
}

/// What is left to do, and what expansion gave.
struct Queues<'a> {
    tasks: VecDeque<Task<'a>>,
    jobs: VecDeque<(Order, Job)>,
    /// Tasks taken and not finished: they may still add tasks and jobs.
    running: usize,
    failed: Vec<(Order, Failure)>,
    sets: Vec<(usize, String, Arc<VariantSet>)>,
}

/// What running one task adds.
#[derive(Default)]
struct Added<'a> {
    tasks: Vec<Task<'a>>,
    jobs: Vec<(Order, Job)>,
    failed: Vec<(Order, Failure)>,
    set: Option<(usize, String, Arc<VariantSet>)>,
}

/// Expands and compiles `compilable` (each with its place in the pass) on every thread of the current pool:
/// the outcomes, the variant sets of the infos with branches (in pass order), and the failures of expansion
/// appended to `failed` in the order one serial pass gives them.
pub(super) fn expand_and_compile(
    flow: &Flow,
    runner: &Runner,
    compilable: &[(usize, &ShaderCreateInfo, &ValidatedInfo)],
    failed: &mut Vec<Failure>,
) -> (Vec<Placed>, Vec<(String, VariantSet)>) {
    // Enumerations first: each is one thread's serial work, and its groups are what the other modules wait for.
    let mut tasks: VecDeque<Task> = compilable
        .iter()
        .filter(|(_, _, v)| !v.branches.is_empty())
        .map(|&(at, info, v)| Task::Enumerate(at, info, v))
        .collect();
    tasks.extend(
        compilable
            .iter()
            .filter(|(_, _, v)| v.branches.is_empty())
            .map(|&(at, _, v)| Task::Plain(at, v)),
    );
    let queues = Mutex::new(Queues {
        tasks,
        jobs: VecDeque::new(),
        running: 0,
        failed: Vec::new(),
        sets: Vec::new(),
    });
    let changed = Condvar::new();
    let done: Vec<Placed> = rayon::broadcast(|_| work(flow, runner, &queues, &changed))
        .into_iter()
        .flatten()
        .collect();
    let q = queues.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut failures = q.failed;
    failures.sort_by_key(|(order, _)| *order);
    failed.extend(failures.into_iter().map(|(_, f)| f));
    let mut sets = q.sets;
    sets.sort_by_key(|(at, _, _)| *at);
    let sets = sets
        .into_iter()
        .map(|(_, name, set)| (name, Arc::unwrap_or_clone(set)))
        .collect();
    (done, sets)
}

/// One thread's share: a task while there is one, else a job, until neither is left nor can come.
fn work<'a>(
    flow: &Flow,
    runner: &Runner,
    queues: &Mutex<Queues<'a>>,
    changed: &Condvar,
) -> Vec<Placed> {
    let lock = || queues.lock().unwrap_or_else(|e| e.into_inner());
    let mut done = Vec::new();
    loop {
        let next = {
            let mut q = lock();
            loop {
                if let Some(task) = q.tasks.pop_front() {
                    q.running += 1;
                    break Some(Ok(task));
                }
                if let Some(job) = q.jobs.pop_front() {
                    break Some(Err(job));
                }
                if q.running == 0 {
                    break None;
                }
                q = changed.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        };
        match next {
            None => {
                changed.notify_all();
                return done;
            }
            Some(Err((order, job))) => done.extend(runner.submit(order, job)),
            Some(Ok(task)) => {
                let added = run(flow, task);
                let mut q = lock();
                q.running -= 1;
                q.tasks.extend(added.tasks);
                q.jobs.extend(added.jobs);
                q.failed.extend(added.failed);
                q.sets.extend(added.set);
                drop(q);
                changed.notify_all();
            }
        }
    }
}

fn run<'a>(flow: &Flow, task: Task<'a>) -> Added<'a> {
    let mut added = Added::default();
    match task {
        Task::Plain(at, v) => {
            let generated = v.stages().into_iter().map(|s| flow.generate(v, s).ok());
            added.jobs = Job::per_stage(v.clone(), generated.collect())
                .into_iter()
                .map(|j| ((at, 0, Some(j.stage)), j))
                .collect();
        }
        Task::Enumerate(at, info, v) => match variant_set(flow, info, v) {
            Err(f) => added.failed.push(((at, 0, None), f)),
            Ok(set) => {
                let set = Arc::new(set);
                added.tasks = set
                    .state_twins()
                    .into_iter()
                    .map(|group| Task::Group(at, info, v, set.clone(), group))
                    .collect();
                added.set = Some((at, info.name.clone(), set));
            }
        },
        Task::Group(at, info, v, set, group) => {
            for (i, expansion) in flow.expand_group(v, &set, &group) {
                match jobs_of(info, i, expansion) {
                    Ok(jobs) => added
                        .jobs
                        .extend(jobs.into_iter().map(|j| ((at, i, Some(j.stage)), j))),
                    Err(f) => added.failed.push(((at, i, None), f)),
                }
            }
        }
    }
    added
}
