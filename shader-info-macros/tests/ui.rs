//! Compile-fail tests: every misuse is an error at the right span that says what to do.
//! Regenerate the expected output with `TRYBUILD=overwrite cargo test -p shader-info-macros --test ui`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
