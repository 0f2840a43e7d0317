use super::*;

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Stamp {
    ns: f64,
}

/// What crosses the pipe: the probe's bytes, read back by its caller.
fn across(a: &Answer<Stamp>) -> Answer<Stamp> {
    let bytes = serde_json::to_vec(&a.encode().unwrap()).unwrap();
    let back: Answer<serde_json::Value> = serde_json::from_slice(&bytes).unwrap();
    back.decode().unwrap()
}

#[test]
fn a_measurement_crosses_the_process_boundary_as_itself() {
    let a = Answer::Measured(Stamp { ns: 42.5 });
    assert_eq!(across(&a), a);
}

#[test]
fn a_skip_is_typed_whatever_its_words() {
    // Neither the word "skipped" nor its absence decides what the answer is.
    for reason in ["sh_c skipped: no /bin/sh", "no clone3 here", ""] {
        let a = Answer::Skipped {
            reason: reason.into(),
        };
        assert_eq!(
            across(&a),
            Answer::Skipped {
                reason: reason.into()
            }
        );
    }
}

#[test]
fn a_measurement_of_the_wrong_shape_is_an_error_not_a_skip() {
    let a = Answer::Measured(serde_json::json!({"other": 1}));
    assert!(a.decode::<Stamp>().is_err());
}
