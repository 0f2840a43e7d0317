use super::*;

fn record(kind: u32, misc: u16, body: &[u64]) -> Vec<u8> {
    let size = 8 + 8 * body.len();
    let mut v = Vec::new();
    v.extend_from_slice(&kind.to_ne_bytes());
    v.extend_from_slice(&misc.to_ne_bytes());
    v.extend_from_slice(&(size as u16).to_ne_bytes());
    for x in body {
        v.extend_from_slice(&x.to_ne_bytes());
    }
    v
}

#[test]
fn samples_and_lost_records_are_read_and_markers_dropped() {
    let kernel_marker = (-128i64) as u64;
    let mut bytes = record(
        PERF_RECORD_SAMPLE,
        MISC_KERNEL,
        &[
            0xffff_1000,
            7 | (7 << 32),
            3,
            kernel_marker,
            0xffff_1000,
            0xffff_2000,
        ],
    );
    bytes.extend(record(PERF_RECORD_SAMPLE, 2, &[0x4000, 7, 0]));
    bytes.extend(record(PERF_RECORD_LOST, 0, &[1, 5]));
    bytes.extend(record(6, 0, &[0, 0, 0]));
    let mut d = Drained::default();
    parse_records(&bytes, &mut d);
    assert_eq!(
        d.samples,
        vec![
            Sample {
                kernel: true,
                kernel_ips: vec![0xffff_1000, 0xffff_2000]
            },
            Sample {
                kernel: false,
                kernel_ips: vec![]
            }
        ]
    );
    assert_eq!(d.lost, 5);
}

#[test]
fn a_truncated_record_ends_the_walk() {
    let mut bytes = record(PERF_RECORD_LOST, 0, &[1, 5]);
    bytes.truncate(20);
    let mut d = Drained::default();
    parse_records(&bytes, &mut d);
    assert_eq!(d.lost, 0);
}

#[test]
fn the_attribute_is_the_kernels_version_5_size() {
    assert_eq!(std::mem::size_of::<Attr>(), ATTR_SIZE_VER5 as usize);
}
