// Shared by the build scripts of every crate whose binaries, tests or benches link tch
// (included with `include!`). torch-sys publishes the libtorch library directory as
// DEP_TCH_LIBTORCH_LIB (its `links = "tch"` metadata). Two link arguments make the
// binaries self-contained:
// - an rpath to that directory, so they run without LD_LIBRARY_PATH;
// - `--no-as-needed -ltorch`, so libtorch.so (which pulls in libtorch_cuda.so where the
//   wheel has it) stays a dependency even though no symbol is used from it directly;
//   without it the linker drops it and CUDA is never found at run time.
fn link_libtorch() {
    println!("cargo:rerun-if-env-changed=DEP_TCH_LIBTORCH_LIB");
    let dir = std::env::var("DEP_TCH_LIBTORCH_LIB")
        .expect("DEP_TCH_LIBTORCH_LIB is unset: this crate must depend on torch-sys directly");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    println!("cargo:rustc-link-arg=-Wl,--no-as-needed");
    println!("cargo:rustc-link-arg=-ltorch");
    println!("cargo:rustc-link-arg=-Wl,--as-needed");
    println!("cargo:rustc-env=GIPFZERO_LIBTORCH_LIB={dir}");
}

/// The libtorch version next to the library directory: `torch/version.py` in a pip wheel,
/// `build-version` in a libtorch archive; "unknown" when neither is there.
#[allow(dead_code)]
fn libtorch_version() -> String {
    let dir = std::path::PathBuf::from(std::env::var("DEP_TCH_LIBTORCH_LIB").unwrap_or_default());
    let root = dir.parent().map(|p| p.to_path_buf()).unwrap_or_default();
    if let Ok(text) = std::fs::read_to_string(root.join("version.py")) {
        for line in text.lines() {
            if line.starts_with("__version__") {
                // `__version__ = '2.11.0+cu130'` (possibly with a type annotation).
                if let Some(value) = line.split(['\'', '"']).nth(1) {
                    return value.to_string();
                }
            }
        }
    }
    if let Ok(text) = std::fs::read_to_string(root.join("build-version")) {
        return text.trim().to_string();
    }
    "unknown".to_string()
}
