//! parir: see the module docs of each part.
