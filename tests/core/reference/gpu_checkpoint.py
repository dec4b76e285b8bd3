"""Makes a workbench checkpoint look as a GPU run writes it, without a GPU.

A LibTorch archive records each tensor's device in its pickle (the persistent id's location,
'cpu' or 'cuda:0'). A run on a GPU writes its weights from the CPU (checkpoint.cpp copies them
there) but its optimiser state from the GPU, and a reader that restores tensors where they were
written fails on a machine without one. This rewrites every location of IN to 'cuda:0' (the
pickle stores the string once and refers back to it) and writes OUT, an archive the C++ reader
must open onto the CPU. Standard library only.

Usage: gpu_checkpoint.py IN OUT   (prints "relocated N" with the number of strings rewritten)
"""
import sys
import zipfile

CPU = b"X\x03\x00\x00\x00cpu"      # BINUNICODE 'cpu'
CUDA = b"X\x06\x00\x00\x00cuda:0"  # BINUNICODE 'cuda:0'


def main(src, dst):
    count = 0
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.endswith("/data.pkl"):
                count += data.count(CPU)
                data = data.replace(CPU, CUDA)
            zout.writestr(info.filename, data)
    print(f"relocated {count}")
    return 0 if count else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
