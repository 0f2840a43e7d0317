//! The A/B run's schedule: both sides' planned experiments in one plan, and
//! their rounds in blocks A B B A, repeated, each block one round of every
//! point of its side, shuffled inside the block.

use crate::run::plan::{Plan, Planned, SideSetup, Slot};
use crate::stats::paired::{block_side, Side};
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;
use rand::SeedableRng;

/// A variable set in a side's workers' environment.
pub type EnvVar = (String, String);

/// Side A's and side B's plans as one: A's experiments, then B's, each
/// marked with its side (its CPUs and its workers' environment), and the
/// schedule in blocks. No adaptive rounds: each side gets `rounds` rounds,
/// one per block of its own.
pub fn combine(
    a: Plan,
    b: Plan,
    (env_a, env_b): (&[EnvVar], &[EnvVar]),
    rounds: usize,
    seed: u64,
) -> Plan {
    let mark = |p: Vec<Planned>, side: Side, pin: &Option<Vec<usize>>, env: &[EnvVar]| {
        p.into_iter()
            .map(|mut e| {
                e.side = Some(SideSetup {
                    side,
                    pin: pin.clone(),
                    env: env.to_vec(),
                    why: None,
                });
                e
            })
            .collect::<Vec<_>>()
    };
    let mut experiments = mark(a.experiments, Side::A, &a.pin, env_a);
    experiments.extend(mark(b.experiments, Side::B, &b.pin, env_b));
    let schedule = schedule(&experiments, rounds, seed);
    Plan {
        profile: a.profile,
        sizing: a.sizing,
        adaptive: None,
        precision: a.precision,
        pin: None,
        experiments,
        seed,
        schedule,
        why: a.why.clone(),
    }
}

/// Every round of every point, in blocks: block `k` measures side
/// [`block_side`]`(k)`, round `k / 2` of each of its points, in an order
/// shuffled from `seed` and `k`.
pub fn schedule(experiments: &[Planned], rounds: usize, seed: u64) -> Vec<Slot> {
    let mut slots = Vec::new();
    for k in 0..2 * rounds {
        let side = block_side(k);
        let mut block: Vec<Slot> = experiments
            .iter()
            .enumerate()
            .filter(|(_, p)| {
                p.unsupported.is_none() && p.side.as_ref().map(|s| s.side) == Some(side)
            })
            .flat_map(|(e, p)| {
                (0..p.points.len()).map(move |point| Slot {
                    experiment: e,
                    point,
                    round: k / 2,
                })
            })
            .collect();
        block.shuffle(&mut Xoshiro256PlusPlus::seed_from_u64(
            crate::stats::seed_for(&format!("{seed}/block/{k}")),
        ));
        slots.extend(block);
    }
    slots
}

#[cfg(test)]
#[path = "blocks_tests.rs"]
mod tests;
