use gpu::compiler::{Compiler, Profile};
use gpu::cross::{Portable, Target, unsupported_everywhere};
use gpu::flow::Flow;
use shader_info::*;
use shaders as _;
use std::collections::BTreeMap;

fn main() {
    let registry = Registry::global();
    let root = shaders::glsl_root();
    let loader = DirLoader::new(&root);
    let compiler = Compiler::new(&root).unwrap();
    let flow = Flow::new(registry, &loader, &compiler, Profile::Release);
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut errors: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let only = std::env::args().nth(1);
    let mut modules = 0;
    let out = std::path::Path::new("/tmp/cross_out");
    std::fs::create_dir_all(out).unwrap();
    for info in registry.infos().filter(|i| i.do_static_compilation) {
        if let Some(o) = &only { if !info.name.starts_with(o.as_str()) { continue; } }
        let v = flow.validated(&info.name).unwrap();
        let variants = match flow.expand(&v).unwrap() {
            None => vec![v],
            Some((_, vs)) => vs.into_iter().map(|x| x.unwrap()).collect(),
        };
        for vi in &variants {
            let plan = flow.plan(vi);
            for stage in vi.stages() {
                modules += 1;
                let everywhere = unsupported_everywhere(vi, &plan, stage);
                if !everywhere.is_empty() {
                    *counts.entry("unsupported-everywhere".into()).or_default() += 1;
                    continue;
                }
                let p = match Portable::new(&flow, vi, stage) {
                    Ok(p) => p,
                    Err(d) => {
                        *counts.entry("parse-failed".into()).or_default() += 1;
                        errors.entry("parse".into()).or_default().push(format!("{} {stage}: {}", vi.key(), d[0].message));
                        continue;
                    }
                };
                for t in Target::ALL {
                    let un = p.unsupported_on(t);
                    if !un.is_empty() {
                        *counts.entry(format!("{t} unsupported")).or_default() += 1;
                        continue;
                    }
                    match p.translate(t, &Default::default()) {
                        Ok(tr) => {
                            *counts.entry(format!("{t} ok")).or_default() += 1;
                            if vi.variant_index().is_none() || vi.variant_index() == Some(0) {
                                std::fs::write(out.join(format!("{}.{}.{}", vi.key().replace('#', "."), stage, t.extension())), &tr.text).unwrap();
                            }
                        }
                        Err(d) => {
                            *counts.entry(format!("{t} failed")).or_default() += 1;
                            errors.entry(t.to_string()).or_default().push(format!("{} {stage}: {}", vi.key(), d[0].message));
                        }
                    }
                }
            }
        }
    }
    println!("{modules} modules");
    for (k, v) in &counts { println!("{k}: {v}"); }
    for (k, v) in &errors {
        let mut seen = std::collections::BTreeMap::new();
        for e in v { let (k, m) = e.split_once(": ").unwrap(); seen.entry(m.to_string()).or_insert((k.to_string(), 0)).1 += 1; }
        let v: Vec<String> = seen.iter().map(|(m, (k, n))| format!("{n}x e.g. {k}: {m}")).collect();
        println!("== {k} ({} distinct)", v.len());
        for e in v.iter().take(12) { println!("  {}", e.chars().take(400).collect::<String>()); }
    }
}
