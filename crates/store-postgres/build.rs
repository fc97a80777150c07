// Re-embed the migrations whenever one changes.
fn main() {
    println!("cargo:rerun-if-changed=../../migrations");
}
