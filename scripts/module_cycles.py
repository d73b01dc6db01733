import os,re,sys
def crate_graph(src):
    mods={}
    for root,_,files in os.walk(src):
        for f in files:
            if not f.endswith('.rs'): continue
            p=os.path.join(root,f); rel=os.path.relpath(p,src)[:-3]
            name=rel.replace('/mod','').replace('/','::')
            if name in ('lib','main'): name='crate'
            mods[name]=open(p).read()
    edges={m:set() for m in mods}
    for m,text in mods.items():
        # strip tests
        t=text.split('#[cfg(test)]')[0]
        t='\n'.join(l for l in t.split('\n') if not l.strip().startswith('//'))
        for u in re.findall(r'(?<![A-Za-z_])(crate|super)::([a-z_:]+)',t):
            kind,path=u
            parts=path.split('::')
            if kind=='crate':
                cands=[ '::'.join(parts[:i]) for i in range(len(parts),0,-1)]
            else:
                parent=m.rsplit('::',1)[0] if '::' in m else 'crate'
                base=[] if parent=='crate' else parent.split('::')
                cands=['::'.join(base+parts[:i]) for i in range(len(parts),0,-1)]
            for c in cands:
                if c in mods and c!=m:
                    edges[m].add(c); break
    return edges
def cycles(edges):
    res=[];color={};stack=[]
    def dfs(u):
        color[u]=1;stack.append(u)
        for v in edges[u]:
            if color.get(v)==1: res.append(stack[stack.index(v):]+[v])
            elif not color.get(v): dfs(v)
        stack.pop();color[u]=2
    for u in edges:
        if not color.get(u): dfs(u)
    return res
# `--check SRC...`: exit 1 when one of these crates has a circle (CI keeps the crates that have none that way).
check = sys.argv[1:2] == ['--check']
found = False
for crate in sys.argv[2 if check else 1:]:
    e=crate_graph(crate)
    c=cycles(e)
    print(crate, 'cycles:', c if c else 'none')
    found = found or bool(c)
sys.exit(1 if check and found else 0)
