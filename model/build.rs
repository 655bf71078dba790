include!("../scripts/tch_link.rs");

fn main() {
    link_libtorch();
    println!("cargo:rustc-env=GIPFZERO_LIBTORCH_VERSION={}", libtorch_version());
    cuda_graph_shim();
}

/// Builds csrc/cuda_graph.cpp (see src/cuda_graph.rs) and sets `cfg(gipfzero_cuda_graphs)`
/// when the libtorch in use is a CUDA build and the headers it needs are at hand: libtorch's
/// own (next to its `lib`), and the CUDA runtime's, which libtorch's CUDA headers include. A
/// pip wheel's come from its `nvidia` packages (`nvidia-cuda-runtime` has `cuda_runtime_api.h`,
/// `nvidia-cuda-crt` the `crt/` headers `cuda_runtime.h` includes; scripts/torch-env.sh
/// installs the latter), a toolkit's from `$CUDA_HOME/include`. Without them the build goes
/// on without graphs, and says so when the libtorch could have had them.
fn cuda_graph_shim() {
    println!("cargo:rustc-check-cfg=cfg(gipfzero_cuda_graphs)");
    println!("cargo:rerun-if-changed=csrc/cuda_graph.cpp");
    println!("cargo:rerun-if-env-changed=CUDA_HOME");
    println!("cargo:rerun-if-env-changed=GIPFZERO_CUDA_GRAPHS");
    if std::env::var("GIPFZERO_CUDA_GRAPHS").as_deref() == Ok("0") {
        return;
    }
    let Ok(lib) = std::env::var("DEP_TCH_LIBTORCH_LIB") else { return };
    let lib = std::path::PathBuf::from(lib);
    if !lib.join("libtorch_cuda.so").exists() || !lib.join("libc10_cuda.so").exists() {
        return; // a CPU libtorch: nothing to capture with
    }
    let torch_include = lib.parent().map(|root| root.join("include")).unwrap_or_default();
    if !torch_include.join("ATen/cuda/CUDAGraph.h").exists() {
        println!("cargo:warning=CUDA graphs left out: no ATen/cuda/CUDAGraph.h under {}", torch_include.display());
        return;
    }
    // The CUDA include folders: the wheel's nvidia packages (site-packages/nvidia/*/include,
    // two levels above torch/lib), then a toolkit's.
    let mut candidates = Vec::new();
    if let Some(site) = lib.parent().and_then(|torch| torch.parent()) {
        // Installing a package there (nvidia-cuda-crt) reruns this script.
        if site.join("nvidia").is_dir() {
            println!("cargo:rerun-if-changed={}", site.join("nvidia").display());
        }
        if let Ok(entries) = std::fs::read_dir(site.join("nvidia")) {
            let mut found: Vec<_> = entries.flatten().map(|entry| entry.path().join("include")).collect();
            found.sort();
            candidates.extend(found);
        }
    }
    for home in [std::env::var("CUDA_HOME").ok(), Some("/usr/local/cuda".to_string())].into_iter().flatten() {
        candidates.push(std::path::PathBuf::from(home).join("include"));
    }
    let with = |file: &str| candidates.iter().find(|dir| dir.join(file).exists()).cloned();
    let (Some(runtime), Some(crt)) = (with("cuda_runtime_api.h"), with("crt/host_config.h")) else {
        println!(
            "cargo:warning=CUDA graphs left out of this CUDA build: cuda_runtime_api.h or crt/host_config.h not found \
             (pip install nvidia-cuda-crt into torch's venv, as scripts/torch-env.sh does, or set CUDA_HOME)"
        );
        return;
    };
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        .file("csrc/cuda_graph.cpp")
        .include(&torch_include)
        .include(torch_include.join("torch/csrc/api/include"))
        .include(&runtime)
        .include(&crt)
        // libtorch 2.11's wheels are built with the C++11 string ABI; no std::string crosses
        // the shim's boundary anyway.
        .define("_GLIBCXX_USE_CXX11_ABI", "1")
        .flag_if_supported("-Wno-unused-parameter")
        .warnings(false);
    if let Err(error) = build.try_compile("gipfzero_cuda_graph") {
        println!("cargo:warning=CUDA graphs left out: the shim did not compile: {error}");
        return;
    }
    println!("cargo:rustc-link-search=native={}", lib.display());
    for library in ["torch_cuda", "c10_cuda", "c10"] {
        println!("cargo:rustc-link-lib=dylib={library}");
    }
    println!("cargo:rustc-cfg=gipfzero_cuda_graphs");
}
