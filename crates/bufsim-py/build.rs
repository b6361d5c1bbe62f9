//! Build script: a hash of the engine's sources (bufsim-core's `src/` and
//! the lock file) as `BUFSIM_BUILD`, so that results stored by one build are
//! not reused by another that carries the same version number; and the git
//! commit the extension is built from as `BUFSIM_COMMIT` (empty outside a
//! checkout), so an installed wheel can name its source in a result's
//! provenance.

use std::hash::Hasher;
use std::path::Path;

/// FNV-1a, 64 bits: stable across Rust versions (std's hasher is not).
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

fn visit(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            visit(&p, files);
        } else if p.extension().is_some_and(|x| x == "rs") {
            files.push(p);
        }
    }
}

/// The short commit of the checkout at `root`, with the files whose change
/// means a new commit (HEAD and the branch it names), or nothing outside a
/// checkout or without git.
fn git_commit(root: &Path) -> Option<(String, Vec<std::path::PathBuf>)> {
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .ok()?;
        let text = String::from_utf8(out.stdout).ok()?.trim().to_owned();
        (out.status.success() && !text.is_empty()).then_some(text)
    };
    let commit = git(&["rev-parse", "--short", "HEAD"])?;
    let mut watch = Vec::new();
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        let dir = std::path::PathBuf::from(dir);
        watch.push(dir.join("HEAD"));
        if let Some(head) = git(&["symbolic-ref", "-q", "HEAD"]) {
            let common = git(&["rev-parse", "--path-format=absolute", "--git-common-dir"])
                .map_or(dir.clone(), std::path::PathBuf::from);
            watch.push(common.join(head));
        }
    }
    Some((commit, watch))
}

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo");
    let root = Path::new(&manifest).join("..");
    let core = root.join("bufsim-core").join("src");
    let mut files = Vec::new();
    visit(&core, &mut files);
    visit(&Path::new(&manifest).join("src"), &mut files);
    files.push(root.join("..").join("Cargo.lock"));
    files.sort();
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    for f in &files {
        if let Ok(bytes) = std::fs::read(f) {
            let rel = f.strip_prefix(&root).unwrap_or(f);
            h.write(rel.to_string_lossy().as_bytes());
            h.write(&bytes);
        }
    }
    println!("cargo:rustc-env=BUFSIM_BUILD={:016x}", h.finish());
    let (commit, watch) = git_commit(&root).unwrap_or_default();
    println!("cargo:rustc-env=BUFSIM_COMMIT={commit}");
    for f in watch.iter().filter(|f| f.exists()) {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    println!("cargo:rerun-if-changed={}", core.display());
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=../../Cargo.lock");
}
