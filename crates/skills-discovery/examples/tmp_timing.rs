use skills_discovery::FileSkillsSource;
use std::time::Instant;
#[tokio::main]
async fn main() {
    let root = std::env::args().nth(1).unwrap();
    let source = FileSkillsSource::builder().root(root).build().unwrap();
    for _ in 0..5 {
        let t = Instant::now();
        let found = source.discover().await;
        println!(
            "{} skills, {} diags, {:?}",
            found.skills.len(),
            found.diagnostics.len(),
            t.elapsed()
        );
    }
}
