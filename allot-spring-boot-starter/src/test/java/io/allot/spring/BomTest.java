package io.allot.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/** The BOM lists every published module of the reactor, at the reactor's version, and nothing else. */
class BomTest {
  /** Not published: test support, the simulator, benchmarks, the BOM itself, the recipes' check, samples. */
  static final Set<String> UNPUBLISHED = Set.of("allot-testkit", "allot-sim", "allot-bench", "allot-bom", "deploy");

  @Test
  void theBomListsEveryPublishedModuleAtTheReactorsVersion() throws Exception {
    Document root = parse(Path.of("../pom.xml"));
    Document bom = parse(Path.of("../allot-bom/pom.xml"));
    List<String> published = new ArrayList<>();
    for (String module : texts(root.getDocumentElement(), "modules", "module")) {
      if (!module.contains("/") && !UNPUBLISHED.contains(module)) {
        published.add(module);
      }
    }
    Element managed = child(bom.getDocumentElement(), "dependencyManagement");
    List<String> listed = texts(managed, "dependencies", "dependency", "artifactId");
    assertThat(listed).containsExactlyInAnyOrderElementsOf(published);
    assertThat(texts(managed, "dependencies", "dependency", "version")).containsOnly("${project.version}");
    assertThat(texts(managed, "dependencies", "dependency", "groupId")).containsOnly("io.allot");
    assertThat(child(bom.getDocumentElement(), "version").getTextContent())
        .isEqualTo(child(root.getDocumentElement(), "version").getTextContent());
    assertThat(child(bom.getDocumentElement(), "parent")).as("the BOM has no parent (it would leak its pins)").isNull();
  }

  static Document parse(Path pom) throws Exception {
    return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
  }

  /** The texts of the elements at {@code path} below {@code from}, every branch followed. */
  static List<String> texts(Element from, String... path) {
    List<Element> level = List.of(from);
    for (String name : path) {
      List<Element> next = new ArrayList<>();
      for (Element e : level) {
        NodeList children = e.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
          Node n = children.item(i);
          if (n instanceof Element c && c.getTagName().equals(name)) {
            next.add(c);
          }
        }
      }
      level = next;
    }
    return level.stream().map(e -> e.getTextContent().trim()).toList();
  }

  static Element child(Element parent, String name) {
    NodeList children = parent.getChildNodes();
    for (int i = 0; i < children.getLength(); i++) {
      if (children.item(i) instanceof Element c && c.getTagName().equals(name)) {
        return c;
      }
    }
    return null;
  }
}
