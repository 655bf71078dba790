//! `gipfzero info`: what this binary is and what it sees.
use gipfzero_games::registry::{GameName, GameSetting};
use gipfzero_games::zertz::Variant;
use gipfzero_games::Game;

pub fn run() -> anyhow::Result<()> {
    let runtime = gipfzero_model::runtime_info();
    println!("gipfzero {}", env!("CARGO_PKG_VERSION"));
    println!("libtorch {} ({})", runtime.libtorch_version, runtime.libtorch_lib_dir);
    println!(
        "cuda: {} ({} device{}), cudnn: {}, cuda graphs: {}",
        if runtime.cuda_available { "available" } else { "not available" },
        runtime.cuda_device_count,
        if runtime.cuda_device_count == 1 { "" } else { "s" },
        if runtime.cudnn_available { "available" } else { "not available" },
        if gipfzero_model::cuda_graph::GRAPHS_BUILT { "in this build" } else { "not in this build" },
    );
    println!(
        "threads: rayon {}, libtorch intra-op {}, inter-op {}",
        rayon::current_num_threads(),
        runtime.intra_op_threads,
        runtime.inter_op_threads
    );
    if let Some(allocator) = runtime.allocator {
        println!("allocator: {allocator}");
    }
    println!("games:");
    for game in GameName::ALL {
        let variants: Vec<&str> = match game {
            GameName::Zertz => Variant::ALL.iter().map(|v| v.name()).collect(),
            _ => vec![game.as_str()],
        };
        for variant in variants {
            let mut setting = GameSetting::new(game);
            if game == GameName::Zertz {
                setting.variant = Some(variant.to_string());
            }
            let spec = setting.start()?.visit(SpecOf);
            println!(
                "  {:<6} {:<9} actions {:>4}, observation {}x{}x{}, symmetries {}",
                spec.game, spec.variant, spec.action_count, spec.planes, spec.height, spec.width,
                spec.symmetry_count
            );
        }
    }
    Ok(())
}

struct SpecOf;

impl gipfzero_games::registry::GameVisitor for SpecOf {
    type Output = &'static gipfzero_games::Spec;
    fn visit<G: Game>(self, start: G) -> Self::Output {
        start.spec()
    }
}
