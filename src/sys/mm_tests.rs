use super::*;

#[test]
fn a_populated_heap_is_resident_page_for_page() {
    let heap = Heap::populated(256 * PAGE, Thp::Off).unwrap();
    assert_eq!(heap.pages(), 256);
    assert_eq!(heap.resident_pages().unwrap(), heap.pages());
}

#[test]
fn a_populated_heap_is_resident_as_a_touched_one_and_an_untouched_one_is_not() {
    let touched = Heap::touched(64 * PAGE, Thp::Off).unwrap();
    let populated = Heap::populated(64 * PAGE, Thp::Off).unwrap();
    let untouched = Heap::untouched(64 * PAGE, Thp::Off).unwrap();
    assert_eq!(
        populated.resident_pages().unwrap(),
        touched.resident_pages().unwrap()
    );
    assert_eq!(untouched.resident_pages().unwrap(), 0);
}

#[test]
fn an_empty_heap_populates_to_nothing() {
    let heap = Heap::populated(0, Thp::Default).unwrap();
    assert_eq!(heap.pages(), 0);
    assert_eq!(heap.resident_pages().unwrap(), 0);
}

#[test]
fn a_populated_heap_takes_writes_and_stays_resident() {
    let heap = Heap::populated(8 * PAGE, Thp::Off).unwrap();
    // Written after populating: still its own private pages, every one.
    for i in 0..heap.pages() {
        heap.write_page(i);
    }
    assert_eq!(heap.resident_pages().unwrap(), 8);
}
