// libFuzzer's entry point for programs that have their own main (compiler-rt FuzzerInterface.h).
// SwiftPM links every executable with `--defsym main=<module>_main`, so libFuzzer's main is never
// used: each harness's main.swift calls this instead.
#pragma once
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
