// libFuzzer's driver with this harness's LLVMFuzzerTestOneInput (see FuzzSupport.runFuzzer).
import FuzzSupport

runFuzzer { data, size in fuzzDaemon(data, size) }
