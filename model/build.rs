include!("../scripts/tch_link.rs");

fn main() {
    link_libtorch();
    println!("cargo:rustc-env=GIPFZERO_LIBTORCH_VERSION={}", libtorch_version());
}
