"""The function's tests (README.md, "Tests"); not in the bundle, which takes the folder's top-level
modules only. They import the function's modules by name, so they run from the function's folder:
/usr/bin/python3 -m unittest discover -s tests -t .
"""
