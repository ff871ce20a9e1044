"""Runs pyopencl's own scan, reduction and sort kernels on Skein and
checks them against numpy: real library kernels (barriers in loops, local
memory, work-size queries) in the default modes. Exits 77 (ctest: skipped)
when pyopencl or numpy is not installed."""
import sys

try:
    import numpy as np
    import pyopencl as cl
    import pyopencl.array as cla
    from pyopencl.algorithm import RadixSort
    from pyopencl.reduction import ReductionKernel
    from pyopencl.scan import ExclusiveScanKernel, GenericScanKernel, InclusiveScanKernel
except ImportError as e:
    print("skipped: %s" % e)
    sys.exit(77)

failures = 0


def check(what, ok):
    global failures
    print("%-48s %s" % (what, "ok" if ok else "WRONG"))
    if not ok:
        failures += 1


def skein_context():
    for p in cl.get_platforms():
        if p.name == "Skein":
            return cl.Context(p.get_devices())
    print("no Skein platform (is OCL_ICD_VENDORS set?)")
    sys.exit(1)


ctx = skein_context()
q = cl.CommandQueue(ctx)
rng = np.random.default_rng(13)

for n in (1, 1000, 100000, 1000003):
    a = rng.integers(0, 100, size=n).astype(np.int32)
    d = cla.to_device(q, a)
    InclusiveScanKernel(ctx, np.int32, "a+b", "0")(d)
    check("inclusive scan int32, n=%d" % n, (d.get() == np.cumsum(a)).all())
    d = cla.to_device(q, a)
    ExclusiveScanKernel(ctx, np.int32, "a+b", "0")(d)
    want = np.concatenate(([0], np.cumsum(a)[:-1])).astype(np.int32)
    check("exclusive scan int32, n=%d" % n, (d.get() == want).all())

# A segmented scan: running maximum restarting at every flagged element.
n = 50000
vals = rng.integers(-1000, 1000, size=n).astype(np.int32)
flags = (rng.random(n) < 0.01).astype(np.int32)
out = cla.empty(q, n, np.int32)
seg = GenericScanKernel(
    ctx, np.int32,
    arguments="__global int *v, __global int *f, __global int *out",
    input_expr="v[i]", scan_expr="across_seg_boundary ? b : max(a, b)",
    neutral="-2147483647", is_segment_start_expr="f[i]",
    output_statement="out[i] = item;")
seg(cla.to_device(q, vals), cla.to_device(q, flags), out)
want = np.empty(n, np.int32)
for i in range(n):
    want[i] = vals[i] if i == 0 or flags[i] else max(want[i - 1], vals[i])
check("segmented max scan, n=%d" % n, (out.get() == want).all())

for n in (1, 777, 100001, 2000000):
    a = rng.integers(-50, 50, size=n).astype(np.int64)
    s = cla.sum(cla.to_device(q, a)).get()
    check("sum int64, n=%d" % n, s == a.sum())
f = rng.random(300000).astype(np.float32)
df = cla.to_device(q, f)
check("max float32", cla.max(df).get() == f.max())
check("min float32", cla.min(df).get() == f.min())
dot = ReductionKernel(ctx, np.float64, neutral="0", reduce_expr="a+b",
                      map_expr="x[i]*y[i]",
                      arguments="__global const double *x, __global const double *y")
x = rng.random(123457)
y = rng.random(123457)
got = dot(cla.to_device(q, x), cla.to_device(q, y)).get()
check("dot float64", abs(got - np.dot(x, y)) <= 1e-9 * abs(np.dot(x, y)))

for n in (1, 1000, 65537):
    keys = rng.integers(0, 2**31, size=n).astype(np.uint32)
    sort = RadixSort(ctx, "unsigned *ary", key_expr="ary[i]",
                     sort_arg_names=["ary"])
    (sorted_dev,), _ = sort(cla.to_device(q, keys), key_bits=32)
    check("radix sort uint32, n=%d" % n, (sorted_dev.get() == np.sort(keys)).all())

print("pyopencl: all checks passed" if not failures else
      "pyopencl: %d check(s) wrong" % failures)
sys.exit(1 if failures else 0)
