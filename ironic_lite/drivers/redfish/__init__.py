"""The ``redfish`` hardware type: machines managed through their BMC's
Redfish service, with sushy (the Redfish library upstream Ironic uses).
"""
