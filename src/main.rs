// The C math functions, defined in the executable so it does not map libm.
#[path = "sys/math_symbols.rs"]
mod math_symbols;

fn main() -> std::process::ExitCode {
    tasklab::main_entry()
}
