// Entity names and variable grouping for vtkMxNReader (see
// vtkMxNVariables.h).
#include "vtkMxNVariables.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <set>
#include <sstream>

namespace vtkMxNVariables
{
namespace
{
/**
 * Component suffix lists that make a multi-component array, in component
 * order, compared case-insensitively. These are the composite variable
 * types of SEACAS IOSS (vectors, quaternions, symmetric / full /
 * asymmetric tensors, matrices; Ioss::VariableType and its standard
 * types), which vtkIOSSReader uses to group Exodus variables. Numbered
 * suffixes (`_1 _2 ...`) are not grouped: ParaView 5.11's IOSS reader
 * leaves GroupNumericVectorFieldComponents off.
 */
const std::vector<std::vector<std::string>>& SuffixTypes()
{
  static const std::vector<std::vector<std::string>> types = {
    { "x", "y" },
    { "x", "y", "z" },
    { "s", "q" },
    { "x", "y", "z", "q" },
    { "xx", "yy", "zz", "xy", "yz", "zx", "yx", "zy", "xz" },
    { "xx", "yy", "zz", "xy", "yx" },
    { "xx", "yy", "xy", "yx" },
    { "xx", "xy", "yz", "zx", "yx", "zy", "xz" },
    { "xx", "xy", "yx" },
    { "xx", "yy", "zz", "xy", "yz", "zx" },
    { "xx", "yy", "zz", "xy" },
    { "xx", "yy", "xy" },
    { "xx", "xy", "yz", "zx" },
    { "xx", "xy" },
    { "xy", "yz", "zx" },
    { "xy", "yz" },
    { "xx", "xy", "yx", "yy" },
    { "xx", "xy", "xz", "yx", "yy", "yz", "zx", "zy", "zz" },
  };
  return types;
}

/** Whether suffixes are 1, 2, ..., n (IOSS's Real[n] fields, grouped
 *  with GroupNumericVectorFieldComponents). */
bool IsNumbered(const std::vector<std::string>& suffixes)
{
  for (size_t i = 0; i < suffixes.size(); ++i)
  {
    if (suffixes[i] != std::to_string(i + 1))
    {
      return false;
    }
  }
  return suffixes.size() > 1;
}

bool SameNoCase(const std::string& a, const std::string& b)
{
  return a.size() == b.size() &&
    std::equal(a.begin(), a.end(), b.begin(),
      [](char x, char y) { return std::tolower(x) == std::tolower(y); });
}

bool IsSuffixType(const std::vector<std::string>& suffixes)
{
  for (const auto& type : SuffixTypes())
  {
    if (type.size() == suffixes.size() &&
      std::equal(type.begin(), type.end(), suffixes.begin(), SameNoCase))
    {
      return true;
    }
  }
  return false;
}
}

//----------------------------------------------------------------------------
std::string EntityName(const char* name, const char* prefix, mxn_gid_t id)
{
  if (name && name[0])
  {
    std::string n(name);
    for (char& c : n)
    {
      c = c == ' ' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return n;
  }
  std::ostringstream s;
  s << prefix << "_" << id;
  return s.str();
}

//----------------------------------------------------------------------------
std::vector<VarGroup> GroupVariables(const char (*names)[MXN_NAME_LEN], int n,
  const int* defined, const char* skip, const Grouping& how)
{
  std::vector<VarGroup> groups;
  auto isDefined = [defined, skip, names](int v)
  { return (!defined || defined[v]) && !(skip && std::strcmp(names[v], skip) == 0); };
  int i = 0;
  while (i < n)
  {
    if (!isDefined(i))
    {
      ++i;
      continue;
    }
    const std::string first = names[i];
    std::vector<int> run{ i };
    size_t lead = 0;
    for (int j = i + 1; j < n && isDefined(j); ++j)
    {
      const std::string other = names[j];
      if (other.size() != first.size())
      {
        break;
      }
      size_t m = 0;
      while (m < first.size() && first[m] == other[m])
      {
        ++m;
      }
      if (m == 0 || m == first.size() || (lead > 0 && m < lead))
      {
        break;
      }
      if (lead == 0)
      {
        lead = m;
      }
      run.push_back(j);
    }
    std::string base = first.substr(0, lead);
    const std::string& sep = how.Separator;
    // A separator, when one is set, must end the leading part.
    const bool separated = sep.empty() ||
      (base.size() > sep.size() && base.compare(base.size() - sep.size(), sep.size(), sep) == 0);
    if (run.size() > 1 && separated)
    {
      std::vector<std::string> suffixes;
      for (int v : run)
      {
        suffixes.emplace_back(names[v] + lead);
      }
      if (IsSuffixType(suffixes) || (how.Numeric && IsNumbered(suffixes)))
      {
        if (!sep.empty())
        {
          base.resize(base.size() - sep.size());
        }
        else if (base.size() > 1 && base.back() == '_')
        {
          base.pop_back();
        }
        groups.push_back({ base, run });
        i = run.back() + 1;
        continue;
      }
    }
    groups.push_back({ first, { i } });
    ++i;
  }
  return groups;
}

//----------------------------------------------------------------------------
std::vector<VarGroup> BlockVariables(const mxn_structure_t* s, int b, const Grouping& how)
{
  const int* truth = s->elem_var_truth ? s->elem_var_truth + b * s->num_elem_vars : nullptr;
  return GroupVariables(s->elem_var_names, s->num_elem_vars, truth, MXN_GHOST_VAR, how);
}

//----------------------------------------------------------------------------
std::vector<VarGroup> AttributeGroups(const mxn_block_info_t& b, int numDim, const Grouping& how)
{
  std::vector<VarGroup> groups;
  const int n = b.num_attr;
  if (n <= 0)
  {
    return groups;
  }
  // Names as IOSS reads them: lower case, blanks as '_'; they count only
  // if every one of them starts with a letter, a digit or '_'.
  std::vector<std::array<char, MXN_NAME_LEN>> names(static_cast<size_t>(n));
  bool named = b.attr_names != nullptr;
  for (int a = 0; a < n; ++a)
  {
    char* out = names[a].data();
    const char* in = b.attr_names ? b.attr_names[a] : "";
    size_t i = 0;
    for (; i + 1 < MXN_NAME_LEN && in[i]; ++i)
    {
      const char c = in[i] == ' ' ? '_' : in[i];
      out[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    out[i] = '\0';
    named = named && (std::isalnum(static_cast<unsigned char>(out[0])) || out[0] == '_');
  }
  auto range = [](const char* name, int first, int count) {
    VarGroup g{ name, {} };
    for (int a = first; a < first + count; ++a)
    {
      g.vars.push_back(a);
    }
    return g;
  };
  if (named)
  {
    std::vector<int> all(static_cast<size_t>(n), 1);
    for (auto& g : GroupVariables(
           reinterpret_cast<const char(*)[MXN_NAME_LEN]>(names.data()), n, all.data(), nullptr, how))
    {
      if (g.name != "attribute")
      {
        groups.push_back(g);
      }
    }
  }
  else
  {
    // Unnamed: the names IOSS gives by the element type (the Exodus
    // manual's conventions), the rest as one `extra_attribute_<count>`.
    // A type matches a kind when the shorter of the two, lower-cased, is
    // the start of the other, as IOSS compares them.
    auto is = [&b](const char* kind) {
      for (size_t i = 0; kind[i] && b.type[i]; ++i)
      {
        if (std::tolower(static_cast<unsigned char>(b.type[i])) != kind[i])
        {
          return false;
        }
      }
      return true;
    };
    auto same = [&b](const char* kind) { return SameNoCase(b.type, kind); };
    int unknown = n;
    if (is("shell") || is("trishell"))
    {
      if (n == b.nodes_per_elem)
      {
        groups.push_back(range("nodal_thickness", 0, n));
        unknown = 0;
      }
      else
      {
        groups.push_back(range("thickness", 0, 1));
        unknown = n - 1;
      }
    }
    else if (same("sphere-mass"))
    {
      if (n == 10)
      {
        groups.push_back(range("mass", 0, 1));
        groups.push_back(range("inertia", 1, 6));
        groups.push_back(range("offset", 7, 3));
      }
      unknown = 0;
    }
    else if (is("circle") || is("sphere"))
    {
      groups.push_back(range("radius", 0, 1));
      if (n > 1)
      {
        groups.push_back(range("volume", 1, 1));
      }
      unknown = n - 2;
    }
    else if (is("truss") || is("bar") || is("beam") || is("rod"))
    {
      int at = 0;
      groups.push_back(range("area", at++, 1));
      if (numDim == 2 && n >= 3)
      {
        groups.push_back(range("i", at++, 1));
        groups.push_back(range("j", at++, 1));
      }
      else if (numDim == 3 && n >= 7)
      {
        groups.push_back(range("i1", at++, 1));
        groups.push_back(range("i2", at++, 1));
        groups.push_back(range("j", at++, 1));
        groups.push_back(range("reference_axis", at, 3));
        at += 3;
        if (n >= 10)
        {
          groups.push_back(range("offset", at, 3));
          at += 3;
        }
      }
      unknown = n - at;
    }
    if (unknown > 0)
    {
      groups.push_back(
        range(("extra_attribute_" + std::to_string(unknown)).c_str(), n - unknown, unknown));
    }
  }
  groups.insert(groups.begin(), range("attribute", 0, n));
  return groups;
}

//----------------------------------------------------------------------------
SelectionNames NamesOf(const mxn_structure_t* s, const Grouping& how)
{
  SelectionNames n;
  std::set<std::string> seen;
  for (int b = 0; b < s->num_blocks; ++b)
  {
    n.Blocks.push_back(EntityName(s->blocks[b].name, "block", s->blocks[b].id));
    std::vector<VarGroup> groups = BlockVariables(s, b, how);
    for (auto& g : AttributeGroups(s->blocks[b], s->num_dim, how))
    {
      groups.push_back(g);
    }
    for (auto& g : groups)
    {
      if (seen.insert(g.name).second)
      {
        n.Cells.push_back(g.name);
      }
    }
  }
  for (int q = 0; q < s->num_node_sets; ++q)
  {
    n.NodeSets.push_back(EntityName(s->node_sets[q].name, "nodelist", s->node_sets[q].id));
  }
  for (int q = 0; q < s->num_side_sets; ++q)
  {
    n.SideSets.push_back(EntityName(s->side_sets[q].name, "surface", s->side_sets[q].id));
  }
  for (auto& g : GroupVariables(s->node_var_names, s->num_node_vars, nullptr, nullptr, how))
  {
    n.Points.push_back(g.name);
  }
  // A set written with ghost copies (mxn repart --ghosts) stores
  // vtkGhostType as a variable; the reader's own halo decides instead.
  for (auto* names : { &n.Points, &n.Cells })
  {
    names->erase(std::remove(names->begin(), names->end(), MXN_GHOST_VAR), names->end());
  }
  return n;
}

//----------------------------------------------------------------------------
int DisplacementGroup(const std::vector<VarGroup>& nodeGroups, int dims)
{
  for (size_t i = 0; i < nodeGroups.size(); ++i)
  {
    const std::string& n = nodeGroups[i].name;
    if (n.size() >= 3 && std::tolower(static_cast<unsigned char>(n[0])) == 'd' &&
      std::tolower(static_cast<unsigned char>(n[1])) == 'i' &&
      std::tolower(static_cast<unsigned char>(n[2])) == 's' &&
      static_cast<int>(nodeGroups[i].vars.size()) == dims)
    {
      return static_cast<int>(i);
    }
  }
  return -1;
}
}
