fn main() {
    lalrpop::process_src().expect("the ParC grammar must build");
}
