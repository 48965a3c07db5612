"""Small in-place editors for netCDF / Exodus II files, for making bad input.

No netCDF Python module is needed: values and attributes are changed through
libnetcdf with ctypes (nc_open(NC_WRITE), nc_put_var_*), a dimension is
changed by a round trip through ncdump / ncgen (netcdf-bin), and a mesh
without elements is written through the Exodus C API (libexoIIv2c).

Used by make_corpus.py; every function raises on failure.
"""
import ctypes
import ctypes.util
import os
import re
import subprocess

NC_NOWRITE = 0
NC_WRITE = 1
NC_GLOBAL = -1

_nc = ctypes.CDLL(ctypes.util.find_library("netcdf") or "libnetcdf.so")
_nc.nc_strerror.restype = ctypes.c_char_p


def _ck(rc, what):
    if rc != 0:
        raise RuntimeError("%s: %s" % (what, _nc.nc_strerror(rc).decode()))


class NcFile:
    """An open netCDF file (read-write unless write=False)."""

    def __init__(self, path, write=True):
        self.path = path
        self.id = ctypes.c_int()
        _ck(_nc.nc_open(path.encode(), NC_WRITE if write else NC_NOWRITE,
                        ctypes.byref(self.id)), "nc_open " + path)

    def close(self):
        if self.id is not None:
            _ck(_nc.nc_close(self.id), "nc_close " + self.path)
            self.id = None

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()

    def varid(self, name):
        v = ctypes.c_int()
        _ck(_nc.nc_inq_varid(self.id, name.encode(), ctypes.byref(v)),
            "%s: variable %s" % (self.path, name))
        return v.value

    def has_var(self, name):
        v = ctypes.c_int()
        return _nc.nc_inq_varid(self.id, name.encode(), ctypes.byref(v)) == 0

    def dimlen(self, name):
        d = ctypes.c_int()
        n = ctypes.c_size_t()
        _ck(_nc.nc_inq_dimid(self.id, name.encode(), ctypes.byref(d)), "dim " + name)
        _ck(_nc.nc_inq_dimlen(self.id, d, ctypes.byref(n)), "dimlen " + name)
        return n.value

    def size(self, name):
        v = self.varid(name)
        nd = ctypes.c_int()
        _ck(_nc.nc_inq_varndims(self.id, v, ctypes.byref(nd)), "ndims " + name)
        dims = (ctypes.c_int * max(nd.value, 1))()
        _ck(_nc.nc_inq_vardimid(self.id, v, dims), "dimids " + name)
        total = 1
        for k in range(nd.value):
            n = ctypes.c_size_t()
            _ck(_nc.nc_inq_dimlen(self.id, dims[k], ctypes.byref(n)), "dimlen")
            total *= n.value
        return total

    def get_int(self, name):
        n = self.size(name)
        buf = (ctypes.c_longlong * max(n, 1))()
        _ck(_nc.nc_get_var_longlong(self.id, self.varid(name), buf), "get " + name)
        return list(buf[:n])

    def put_int(self, name, values):
        n = self.size(name)
        assert len(values) == n, (name, len(values), n)
        buf = (ctypes.c_longlong * max(n, 1))(*values)
        _ck(_nc.nc_put_var_longlong(self.id, self.varid(name), buf), "put " + name)

    def get_double(self, name):
        n = self.size(name)
        buf = (ctypes.c_double * max(n, 1))()
        _ck(_nc.nc_get_var_double(self.id, self.varid(name), buf), "get " + name)
        return list(buf[:n])

    def put_double(self, name, values):
        n = self.size(name)
        assert len(values) == n, (name, len(values), n)
        buf = (ctypes.c_double * max(n, 1))(*values)
        _ck(_nc.nc_put_var_double(self.id, self.varid(name), buf), "put " + name)

    def put_att_text(self, var, att, text):
        """Set a text attribute of variable `var` (None: global)."""
        v = NC_GLOBAL if var is None else self.varid(var)
        _ck(_nc.nc_redef(self.id), "redef")
        data = text.encode()
        _ck(_nc.nc_put_att_text(self.id, v, att.encode(), ctypes.c_size_t(len(data)), data),
            "put_att %s:%s" % (var, att))
        _ck(_nc.nc_enddef(self.id), "enddef")


def edit_int(path, var, fn):
    """values = fn(values) for integer variable `var` of `path`."""
    with NcFile(path) as f:
        f.put_int(var, fn(f.get_int(var)))


def edit_double(path, var, fn):
    with NcFile(path) as f:
        f.put_double(var, fn(f.get_double(var)))


def rename_var(path, var, new):
    """Rename variable `var` of `path` (netCDF-3 renames in place)."""
    with NcFile(path) as f:
        v = f.varid(var)
        _ck(_nc.nc_redef(f.id), "redef")
        _ck(_nc.nc_rename_var(f.id, v, new.encode()), "rename %s" % var)
        _ck(_nc.nc_enddef(f.id), "enddef")


def rename_dim(path, name, new):
    """Rename dimension `name` of `path` (netCDF-3 renames in place)."""
    with NcFile(path) as f:
        d = ctypes.c_int()
        _ck(_nc.nc_inq_dimid(f.id, name.encode(), ctypes.byref(d)), "dim " + name)
        _ck(_nc.nc_redef(f.id), "redef")
        _ck(_nc.nc_rename_dim(f.id, d, new.encode()), "rename %s" % name)
        _ck(_nc.nc_enddef(f.id), "enddef")


def set_att_text(path, var, att, text):
    with NcFile(path) as f:
        f.put_att_text(var, att, text)


def change_nodes_per_element(path, block_index, npe):
    """Give element block `block_index` (1-based in the file) `npe` nodes
    per element, keeping the first npe of each element's nodes, by an
    ncdump -> edit -> ncgen round trip (a netCDF dimension cannot change in
    place)."""
    kind = subprocess.run(["ncdump", "-k", path], check=True, capture_output=True,
                          text=True).stdout.strip()
    cdl = subprocess.run(["ncdump", path], check=True, capture_output=True,
                         text=True).stdout
    dim = "num_nod_per_el%d" % block_index
    m = re.search(r"\b%s = (\d+) ;" % dim, cdl)
    if not m:
        raise RuntimeError("%s: no dimension %s" % (path, dim))
    old = int(m.group(1))
    cdl = cdl[:m.start(1)] + str(npe) + cdl[m.end(1):]
    var = "connect%d" % block_index
    dm = re.search(r"\n %s =\s*([-0-9,\s]*);" % var, cdl)
    if not dm:
        raise RuntimeError("%s: no data for %s" % (path, var))
    vals = [int(x) for x in dm.group(1).replace(",", " ").split()]
    rows = [vals[i:i + old] for i in range(0, len(vals), old)]
    new = ", ".join(str(x) for r in rows for x in (r[:npe] + [r[0]] * max(0, npe - old)))
    cdl = cdl[:dm.start(1)] + new + " " + cdl[dm.end(1):]
    kinds = {"classic": "classic", "64-bit offset": "64-bit offset",
             "netCDF-4": "netCDF-4", "netCDF-4 classic model": "netCDF-4 classic model",
             "cdf5": "64-bit data"}
    tmp = path + ".cdl"
    with open(tmp, "w") as f:
        f.write(cdl)
    os.remove(path)
    subprocess.run(["ncgen", "-k", kinds.get(kind, "64-bit offset"), "-o", path, tmp],
                   check=True)
    os.remove(tmp)


# ---- the Exodus C API, for a mesh with nodes but no elements ----
_exo = None


def _exodus():
    global _exo
    if _exo is None:
        _exo = ctypes.CDLL(ctypes.util.find_library("exoIIv2c") or "libexoIIv2c.so")
        _exo.ex_create_int.argtypes = [ctypes.c_char_p, ctypes.c_int,
                                       ctypes.POINTER(ctypes.c_int),
                                       ctypes.POINTER(ctypes.c_int), ctypes.c_int]
        _exo.ex_put_init.argtypes = [ctypes.c_int, ctypes.c_char_p] + [ctypes.c_int64] * 6
        _exo.ex_put_coord.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                                      ctypes.c_void_p]
        _exo.ex_put_id_map.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
    return _exo


EX_CLOBBER = 0x0008
EX_NODE_MAP = 5  # ex_entity_type EX_NODE_MAP


def write_nodes_only(path, coords, node_ids=None):
    """An Exodus file with len(coords) 3D nodes, no element at all."""
    exo = _exodus()
    cws, iows = ctypes.c_int(8), ctypes.c_int(8)
    exoid = exo.ex_create_int(path.encode(), EX_CLOBBER, ctypes.byref(cws), ctypes.byref(iows),
                              602)
    if exoid < 0:
        raise RuntimeError("ex_create %s failed" % path)
    n = len(coords)
    if exo.ex_put_init(exoid, b"nodes only", 3, n, 0, 0, 0, 0) < 0:
        raise RuntimeError("ex_put_init %s failed" % path)
    if n:
        xs = [(ctypes.c_double * n)(*[c[d] for c in coords]) for d in range(3)]
        if exo.ex_put_coord(exoid, xs[0], xs[1], xs[2]) < 0:
            raise RuntimeError("ex_put_coord %s failed" % path)
        if node_ids is not None:
            ids = (ctypes.c_int * n)(*node_ids)
            if exo.ex_put_id_map(exoid, EX_NODE_MAP, ids) < 0:
                raise RuntimeError("ex_put_id_map %s failed" % path)
    exo.ex_close(exoid)


def read_int(path, var):
    with NcFile(path, write=False) as f:
        return f.get_int(var)


def dim(path, name):
    with NcFile(path, write=False) as f:
        return f.dimlen(name)
