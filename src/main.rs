fn main() -> std::process::ExitCode {
    tasklab::main_entry()
}
