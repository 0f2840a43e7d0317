//! Hidden experiments that misbehave on purpose, so the tests can check that
//! a worker's crash or hang marks that experiment failed, kills everything it
//! started, and lets the run go on. Run only when named; they reproduce no
//! seed experiment.

pub mod crash;
pub mod hang;
pub mod spin;
