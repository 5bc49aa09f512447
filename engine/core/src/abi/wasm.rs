//! Raw `extern "C"` ABI for wasm32: the host allocates an input buffer in linear memory, fills it,
//! calls `call` once per task and reads the result. All `unsafe` of the engine lives here (the crate
//! denies `unsafe_code` everywhere else).
#![allow(unsafe_code)]

use std::cell::RefCell;

thread_local! {
    static RESULT: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

/// Allocates room for `len` f64 values; the host writes the input there.
#[no_mangle]
pub extern "C" fn engine_alloc(len: usize) -> *mut f64 {
    let mut v: Vec<f64> = Vec::with_capacity(len.max(1));
    let ptr = v.as_mut_ptr();
    std::mem::forget(v);
    ptr
}

/// Frees a buffer from `engine_alloc`.
///
/// # Safety
/// `ptr` and `len` must come from one `engine_alloc` call, freed once.
#[no_mangle]
pub unsafe extern "C" fn engine_free(ptr: *mut f64, len: usize) {
    drop(Vec::from_raw_parts(ptr, 0, len.max(1)));
}

/// Runs operation `op` on `len` values at `ptr`; returns the result's length.
///
/// # Safety
/// `ptr` must point to `len` initialised f64 values in linear memory.
#[no_mangle]
pub unsafe extern "C" fn engine_call(op: u32, ptr: *const f64, len: usize) -> usize {
    let input = std::slice::from_raw_parts(ptr, len);
    let out = super::call(op, input);
    let n = out.len();
    RESULT.with(|r| *r.borrow_mut() = out);
    n
}

/// Address of the last result (valid until the next `engine_call`).
#[no_mangle]
pub extern "C" fn engine_result_ptr() -> *const f64 {
    RESULT.with(|r| r.borrow().as_ptr())
}

/// Releases the last result's memory.
#[no_mangle]
pub extern "C" fn engine_result_clear() {
    RESULT.with(|r| *r.borrow_mut() = Vec::new());
}
