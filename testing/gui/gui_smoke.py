"""GUI smoke test, run inside the `paraview` client (see gui_smoke.sh).

paraview --dr --plugin-search-paths=DIR --plugins=MxNReader \
         --test-script=gui_smoke.py --exit

Takes its arguments from the environment (the client passes none to a
test script):
  MXN_GUI_DATASET   a spread-set member, e.g. mesh.e.4.0
  MXN_GUI_FIELD     a point field to colour by
  MXN_GUI_CELLS     the expected number of cells
  MXN_GUI_OUT       the screenshot to write (PNG); the verdict goes to
                    MXN_GUI_OUT + ".txt" as one line "PASS ..." or
                    "FAIL ...", because the client's exit code does not
                    reflect a failing script.

Checked: the plugin was loaded at start-up (the MxNReader proxy is known to
the session and reported by the plugin manager), ParaView's reader factory
offers MxNReader for the spread-set member, the reader loads it without an
error with the expected cell count, and the active view of the main window
shows it (screenshot written; gui_smoke.sh checks it is not blank).
"""
import os
import traceback

out = os.environ.get("MXN_GUI_OUT", "")
verdict = out + ".txt"


def finish(ok, msg):
    with open(verdict, "w") as f:
        f.write("%s %s\n" % ("PASS" if ok else "FAIL", msg))
    print("gui_smoke: %s: %s" % ("PASS" if ok else "FAIL", msg))


try:
    dataset = os.environ["MXN_GUI_DATASET"]
    field = os.environ["MXN_GUI_FIELD"]
    cells = int(os.environ["MXN_GUI_CELLS"])

    from paraview.simple import *  # noqa: F401,F403
    from paraview import servermanager
    from vtkmodules.util.misc import calldata_type
    from vtkmodules.util.vtkConstants import VTK_STRING

    pxm = servermanager.ProxyManager()
    if pxm.SMProxyManager.GetPrototypeProxy("sources", "MxNReader") is None:
        raise RuntimeError("no MxNReader proxy: the plugin was not loaded at start-up")
    plugins = servermanager.vtkSMProxyManager.GetProxyManager().GetPluginManager()
    loaded = plugins.GetLocalInformation()
    found = [loaded.GetPluginName(i) for i in range(loaded.GetNumberOfPlugins())
             if loaded.GetPluginLoaded(i)]
    if "MxNReader" not in found:
        raise RuntimeError("plugin manager lists loaded plugins %s, not MxNReader" % found)

    factory = servermanager.vtkSMProxyManager.GetProxyManager().GetReaderFactory()
    # GetReaders: the readers whose extensions or patterns match and whose
    # CanReadFile accepts the file, as (group, name, description) triples;
    # File > Open lets the user pick one of them.
    readers = factory.GetReaders(dataset, servermanager.ActiveConnection.Session)
    offered = [readers.GetString(i + 1) for i in range(0, readers.GetNumberOfStrings(), 3)]
    if "MxNReader" not in offered:
        raise RuntimeError("reader factory offers %s for %s, not MxNReader"
                           % (offered, os.path.basename(dataset)))

    errors = []

    @calldata_type(VTK_STRING)
    def on_error(obj, event, msg):
        errors.append(" ".join(str(msg).split()))

    reader = servermanager.sources.MxNReader()
    reader.GetClientSideObject().AddObserver("ErrorEvent", on_error)
    reader.FileName = dataset
    RegisterProxy = servermanager.ProxyManager().RegisterProxy
    RegisterProxy("sources", os.path.basename(dataset), reader)
    SetActiveSource(reader)  # noqa: F405
    reader.UpdatePipeline()
    if errors:
        raise RuntimeError("MxNReader errors: " + " | ".join(errors)[:600])
    n = reader.GetDataInformation().GetNumberOfCells()
    if n != cells:
        raise RuntimeError("MxNReader gave %d cells, expected %d" % (n, cells))

    view = GetActiveViewOrCreate("RenderView")  # noqa: F405
    display = Show(reader, view)  # noqa: F405
    ColorBy(display, ("POINTS", field))  # noqa: F405
    display.RescaleTransferFunctionToDataRange(True, False)
    view.CameraPosition = [1.0, -1.2, 0.9]
    view.CameraFocalPoint = [0.0, 0.0, 0.0]
    view.CameraViewUp = [0.0, 0.0, 1.0]
    view.ResetCamera()
    Render(view)  # noqa: F405
    SaveScreenshot(out, view, ImageResolution=[640, 480])  # noqa: F405
    if not os.path.isfile(out):
        raise RuntimeError("SaveScreenshot wrote no %s" % out)
    finish(True, "plugin loaded, reader factory offers %s, %s: %d cells shown, "
           "coloured by %s; screenshot %s"
           % (", ".join(offered), os.path.basename(dataset), n, field, out))
except Exception as e:  # the verdict file must be written whatever happens
    traceback.print_exc()
    finish(False, "%s: %s" % (type(e).__name__, e))
