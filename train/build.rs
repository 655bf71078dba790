include!("../scripts/tch_link.rs");

fn main() {
    link_libtorch();
}
